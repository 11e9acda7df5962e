/** What the admin CLI printed, for tests that drive it: its lines (errors as "ERR …", questions as "ASK …"). */
export function captureOutput(answer?: string) {
  const lines: string[] = [];
  const out = {
    log: (l: string) => lines.push(l),
    error: (l: string) => lines.push(`ERR ${l}`),
    // Without an answer the CLI has no terminal to ask on.
    ...(answer === undefined
      ? {}
      : {
          ask: async (q: string) => {
            lines.push(`ASK ${q}`);
            return answer;
          },
        }),
  };
  return { lines, out };
}
