/** Field errors of a form: the first message per field, keyed by the field's name. */
export type FieldErrors = Record<string, string | undefined>;

/** The first message per field, from zod issues (path array) or the server's issues (dotted path). */
export function fieldErrors(
  issues: readonly { path: readonly PropertyKey[] | string; message: string }[],
): FieldErrors {
  const errors: FieldErrors = {};
  for (const issue of issues) {
    const key = typeof issue.path === 'string' ? (issue.path.split('.')[0] ?? '') : String(issue.path[0] ?? '');
    errors[key] ??= issue.message;
  }
  return errors;
}
