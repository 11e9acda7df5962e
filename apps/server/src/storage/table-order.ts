/** Tables in an order rows can be copied in: each after the tables its foreign keys point to. */
export function dependencyOrder(names: readonly string[], refersTo: ReadonlyMap<string, readonly string[]>): string[] {
  const ordered: string[] = [];
  const visit = (t: string, seen: Set<string>) => {
    if (ordered.includes(t) || seen.has(t)) return;
    seen.add(t);
    for (const d of refersTo.get(t) ?? []) if (d !== t) visit(d, seen);
    ordered.push(t);
  };
  for (const t of names) visit(t, new Set());
  return ordered;
}
