/**
 * JSON over fetch for the app's API. This module is in the first screen's chunk, which
 * carries no zod (its evaluation was most of the first screen's script time): the schemas
 * come with the callers (`api(schema, …)`, from their own chunks), and an error body is
 * read with a schema loaded only when an error comes (answer-schemas.ts).
 */
import type { ApiErrorBody, ApiErrorCode } from '@app/protocol';
import type { z } from 'zod';

/** A failed API call, carrying the server's code and human message. */
export class ApiError extends Error {
  readonly status: number;
  readonly code: ApiErrorCode;
  readonly issues: { path: string; message: string }[];
  /** When a refused attempt may be tried again (ms), e.g. after too many wrong PINs. */
  readonly retryAt: number | null;
  constructor(status: number, body: ApiErrorBody) {
    super(body.message);
    this.status = status;
    this.code = body.error;
    this.issues = body.issues ?? [];
    this.retryAt = body.retryAt ?? null;
  }
}

type Method = 'GET' | 'POST' | 'DELETE' | 'PATCH' | 'PUT';

/**
 * JSON over fetch with the session cookie. The answer is parsed with `schema` (the
 * protocol's schema of that route's answer); throws ApiError on any non-2xx answer or
 * on an answer that does not match.
 */
export async function api<S extends z.ZodType>(
  schema: S,
  method: Method,
  path: string,
  body?: unknown,
): Promise<z.output<S>> {
  const { status, data } = await apiJson(method, path, body);
  return parseAnswer(schema, status, data);
}

/** An answer checked against its schema; ApiError when it does not match. */
export function parseAnswer<S extends z.ZodType>(schema: S, status: number, data: unknown): z.output<S> {
  const parsed = schema.safeParse(data);
  if (!parsed.success) {
    throw new ApiError(status, { error: 'internal', message: 'The server sent an answer this page cannot read.' });
  }
  return parsed.data;
}

/**
 * The request, and its answer's JSON unchecked (`null` when empty): for the caller to
 * check (api() above), or to ignore (an answer with no content). Throws ApiError on any
 * non-2xx answer.
 */
export async function apiJson(
  method: Method,
  path: string,
  body?: unknown,
): Promise<{ status: number; data: unknown }> {
  let res: Response;
  try {
    res = await fetch(path, {
      method,
      credentials: 'same-origin',
      headers:
        body === undefined
          ? { accept: 'application/json' }
          : { 'content-type': 'application/json', accept: 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new ApiError(0, {
      error: 'internal',
      message: 'Cannot reach the server. Check your connection and try again.',
    });
  }
  if (!res.ok) throw await refusalOf(res);
  return { status: res.status, data: await jsonOf(res) };
}

/** The body as JSON; null when empty or not JSON. */
async function jsonOf(res: Response): Promise<unknown> {
  const text = await res.text();
  if (!text) return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/**
 * A non-2xx answer as an ApiError: our error body (code, message, retryAt), read with a
 * schema loaded only now (the first screens' chunks carry no zod); a foreign body (a
 * proxy's page, say) by its message if it has one, else the status.
 */
export async function refusalOf(res: Response): Promise<ApiError> {
  const data = await jsonOf(res);
  // The schema's chunk could not load (offline, a new deploy): read it as a foreign body.
  const schemas = await import('./answer-schemas').catch(() => null);
  const err = schemas?.apiErrorBodySchema.safeParse(data);
  if (err?.success) return new ApiError(res.status, err.data);
  const message = (data as { message?: unknown } | null)?.message;
  return new ApiError(res.status, {
    error: 'internal',
    message: typeof message === 'string' ? message : `Request failed (${res.status})`,
  });
}
