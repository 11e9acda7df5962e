/** What a socket that resumes or fills a gap reads of a user's update log (ChatStore.updatesSince). */

/**
 * Whether the log rows read after `seq` follow on from it without a gap, up to `current`
 * (the user's seq, read first) at least. Rows past `current` are updates committed between
 * the two reads (another process's group): they belong to the backlog too. A gap means the
 * log was pruned past the position.
 */
export function followsOn(seq: number, current: number, rows: readonly { seq: number | string }[]): boolean {
  const first = Number(rows[0]?.seq);
  const last = Number(rows.at(-1)?.seq);
  return first === seq + 1 && last >= current && last - first + 1 === rows.length;
}
