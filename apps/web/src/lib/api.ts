import type { ApiErrorBody, ApiErrorCode } from '@app/protocol';

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

/** JSON over fetch with the session cookie; throws ApiError on any non-2xx answer. */
export async function api<T>(method: Method, path: string, body?: unknown): Promise<T> {
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
  const text = await res.text();
  let data: unknown = null;
  if (text) {
    try {
      data = JSON.parse(text);
    } catch {
      data = null;
    }
  }
  if (!res.ok) {
    const err = data as Partial<ApiErrorBody> | null;
    throw new ApiError(res.status, {
      error: err?.error ?? 'internal',
      message: err?.message ?? `Request failed (${res.status})`,
      issues: err?.issues ?? [],
      ...(typeof err?.retryAt === 'number' ? { retryAt: err.retryAt } : {}),
    });
  }
  return data as T;
}
