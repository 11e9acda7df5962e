import type { FastifyError, FastifyInstance } from 'fastify';
import { HttpError, sendError } from './errors.ts';

/** Every error leaves as the API's error body: Fastify's own (too large, bad JSON, limits) mapped to its codes. */
export function registerErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError | HttpError, req, reply) => {
    if (err instanceof HttpError) return sendError(reply, err);
    const status = err.statusCode ?? 500;
    if (status === 413) return sendError(reply, new HttpError(413, 'payload_too_large', 'The request is too large'));
    if (status === 415)
      return sendError(
        reply,
        new HttpError(415, 'unsupported_media_type', 'Send JSON (Content-Type: application/json)'),
      );
    if (status === 429)
      return sendError(reply, new HttpError(429, 'rate_limited', 'Too many requests. Please slow down.'));
    if (status >= 400 && status < 500) {
      return sendError(
        reply,
        new HttpError(
          status,
          'invalid_input',
          err.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || err.name === 'SyntaxError'
            ? 'The request body is not valid JSON'
            : 'Invalid request',
        ),
      );
    }
    req.log.error({ err }, 'unhandled error');
    return sendError(reply, new HttpError(500, 'internal', 'Something went wrong. Please try again.'));
  });
}
