/**
 * How `npm run cluster` (scripts/cluster.ts) runs its server processes, in one place: the
 * ports and the variables each process gets. compose.yaml runs the same (a test compares).
 */

/** nginx's port (PORT overrides it) and the first process's (the next ones follow). */
export const CLUSTER_PROXY_PORT = 8080;
export const CLUSTER_FIRST_PORT = 3001;

/** The variables of the process on `port`, besides the operator's (DATABASE_URL, REDIS_URL, …). */
export function clusterProcessEnv(port: number, publicUrl: string, allowedOrigins?: string): Record<string, string> {
  const url = `http://127.0.0.1:${port}`;
  return {
    PORT: String(port),
    HOST: '127.0.0.1',
    TRUST_PROXY: '1',
    PUBLIC_URL: publicUrl,
    // Each process also takes its own address (what the browser tests that pin a user to one
    // process open); users come through the proxy, at PUBLIC_URL.
    ALLOWED_ORIGINS: [allowedOrigins, url].filter(Boolean).join(','),
  };
}
