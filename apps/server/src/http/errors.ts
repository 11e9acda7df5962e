import type { ApiErrorBody, ApiErrorCode } from '@app/protocol';
import type { FastifyReply } from 'fastify';
import type { z } from 'zod';

/** An error with an HTTP status and a message safe to show the user. */
export class HttpError extends Error {
  readonly status: number;
  readonly code: ApiErrorCode;
  readonly issues: ApiErrorBody['issues'];
  retryAt?: number;

  constructor(status: number, code: ApiErrorCode, message: string, issues?: ApiErrorBody['issues']) {
    super(message);
    this.status = status;
    this.code = code;
    this.issues = issues;
  }
}

export function sendError(reply: FastifyReply, err: HttpError): FastifyReply {
  const body: ApiErrorBody = { error: err.code, message: err.message };
  if (err.issues?.length) body.issues = err.issues;
  if (err.retryAt !== undefined) body.retryAt = err.retryAt;
  return reply.code(err.status).send(body);
}

/** Parses a request body with a protocol schema, or throws a 400 naming the first problem. */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown): z.infer<S> {
  const r = schema.safeParse(body ?? {});
  if (r.success) return r.data;
  const issues = r.error.issues.map((i) => ({
    path: i.path.map(String).join('.'),
    message: i.code === 'unrecognized_keys' ? `Unknown field: ${i.keys.join(', ')}` : i.message,
  }));
  throw new HttpError(400, 'invalid_input', issues[0]?.message ?? 'Invalid input', issues);
}
