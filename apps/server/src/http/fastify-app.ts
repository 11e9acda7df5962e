/**
 * The Fastify instance the server is composed on (app.ts): small bodies, the proxy's
 * request ids, a logger that keeps secrets out of its lines, and connections that end
 * while the server stops.
 */
import Fastify, { type FastifyInstance } from 'fastify';

/** JSON bodies are small: the largest legitimate one is a sign-up form. */
export const BODY_LIMIT = 16 * 1024;

export interface AppOptions {
  /** Trust X-Forwarded-* from the proxy in front (TRUST_PROXY). */
  trustProxy: boolean;
  logLevel: string;
  /** false: no logger (unless logStream is given). */
  logger?: boolean;
  /** Where log lines go instead of standard output (tests read them); implies a logger. */
  logStream?: { write(line: string): void };
}

export function createApp(opts: AppOptions): FastifyInstance {
  return Fastify({
    bodyLimit: BODY_LIMIT,
    trustProxy: opts.trustProxy,
    forceCloseConnections: 'idle',
    return503OnClosing: true,
    // The proxy's request id (deploy/nginx sets X-Request-Id) names the request in every log
    // line, and in the log lines of the socket an upgrade opens.
    requestIdHeader: 'x-request-id',
    logger:
      opts.logger === false && !opts.logStream
        ? false
        : {
            level: opts.logLevel,
            ...(opts.logStream ? { stream: opts.logStream } : {}),
            redact: {
              paths: ['req.headers.cookie', 'req.headers.authorization', 'res.headers["set-cookie"]', '*.password'],
              censor: '[redacted]',
            },
          },
  });
}

/** While shutting down, every response ends its connection, so keep-alive clients with a request in flight do not hold the process open. */
export function registerClosingConnections(app: FastifyInstance): void {
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onSend', async (_req, reply, payload) => {
    if (closing) reply.header('connection', 'close');
    return payload;
  });
}
