/**
 * The packaging files agree with the code (there is no Docker engine here to run them): the
 * Dockerfile, compose.yaml and the systemd unit run the server's entry point with the server's
 * V8 flags, set only variables of the configuration table, check readiness at /readyz; compose
 * runs what `npm run cluster` runs (ports, variables) behind deploy/nginx/parley.conf as it is.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { CLUSTER_FIRST_PORT, CLUSTER_PROXY_PORT, clusterProcessEnv } from './cluster-env.ts';
import { CONFIG_OPTIONS } from './config-options.ts';
import { SERVER_NODE_FLAGS } from './node-flags.ts';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');
const VARIABLES = new Set(CONFIG_OPTIONS.map((o) => o.name));
const ENTRY = ['node', ...SERVER_NODE_FLAGS, 'apps/server/src/main.ts'];
/** Variables of the runtime, not of Parley. */
const NOT_OURS = new Set(['NODE_ENV']);

interface Service {
  image?: string;
  environment?: Record<string, string>;
  healthcheck?: { test: string[] };
  network_mode?: string;
  volumes?: string[];
}
const compose = parse(read('compose.yaml'), { merge: true }) as { services: Record<string, Service> };
const parleys = Object.entries(compose.services).filter(([name]) => /^parley\d+$/.test(name));

function nginxPorts(conf: string): { upstreams: number[]; listen: number } {
  const upstreams = [...conf.matchAll(/^\s*server 127\.0\.0\.1:(\d+)/gm)].map((m) => Number(m[1]));
  const listen = Number(/^\s*listen (\d+);/m.exec(conf)?.[1]);
  return { upstreams, listen };
}

describe('Dockerfile', () => {
  const docker = read('Dockerfile');
  it('runs the server entry point with its flags, as a non-root user, on node 24', () => {
    const entry = /^ENTRYPOINT (\[.*\])$/m.exec(docker)?.[1];
    expect(JSON.parse(entry ?? 'null')).toEqual(ENTRY);
    expect(docker).toMatch(/^FROM node:24-slim AS build$/m);
    expect(docker).toMatch(/^USER node$/m);
  });
  it('sets table variables, exposes the default PORT, keeps DATA_DIR in a volume, checks /readyz', () => {
    const env = /^ENV ([\s\S]*?)\n(?!\s)/m.exec(docker)?.[1] ?? '';
    const vars = Object.fromEntries([...env.matchAll(/([A-Z_]+)=(\S+)/g)].map((m) => [m[1], m[2]]));
    for (const name of Object.keys(vars)) if (!NOT_OURS.has(name)) expect(VARIABLES).toContain(name);
    expect(docker).toMatch(new RegExp(`^EXPOSE ${vars.PORT}$`, 'm'));
    expect(Number(vars.PORT)).toBe(CONFIG_OPTIONS.find((o) => o.name === 'PORT')?.default);
    expect(docker).toMatch(new RegExp(`^VOLUME \\["${vars.DATA_DIR}"\\]$`, 'm'));
    expect(docker).toMatch(/^HEALTHCHECK .*\n.*\/readyz/m);
  });
});

describe('compose.yaml', () => {
  it('runs what npm run cluster runs: the same processes, ports and variables', () => {
    expect(parleys.map(([name]) => name)).toEqual(['parley1', 'parley2']);
    parleys.forEach(([, service], i) => {
      const env = service.environment ?? {};
      for (const name of Object.keys(env)) expect(VARIABLES).toContain(name);
      const port = CLUSTER_FIRST_PORT + i;
      const cluster = clusterProcessEnv(port, 'http://127.0.0.1:8080');
      expect(env.PORT).toBe(cluster.PORT);
      expect(env.HOST).toBe(cluster.HOST);
      expect(env.TRUST_PROXY).toBe(cluster.TRUST_PROXY);
      expect(env.ALLOWED_ORIGINS).toBe(cluster.ALLOWED_ORIGINS);
      expect(env.PUBLIC_URL).toBe(`\${PUBLIC_URL:-${cluster.PUBLIC_URL}}`);
      expect(env.DATABASE_URL).toMatch(/^postgres:\/\//);
      expect(env.REDIS_URL).toMatch(/^redis:\/\//);
      // What an operator sets: passed through from the shell (empty: the server's default).
      for (const name of ['SMTP_URL', 'METRICS_TOKEN', 'SESSION_SECRET', 'S3_BUCKET', 'S3_URL']) {
        expect(env[name], name).toBe(`\${${name}:-}`);
      }
      // The image's entry point (checked above against the server's) with no command of its own.
      expect(service).not.toHaveProperty('command');
      expect(service.network_mode).toBe('host');
      expect(service.healthcheck?.test.join(' ')).toContain('/readyz');
      expect(service.volumes).toContain('parley-data:/data');
    });
  });

  it("puts deploy/nginx/parley.conf unchanged in front of them, on the cluster's port", () => {
    const conf = read('deploy/nginx/parley.conf');
    const { upstreams, listen } = nginxPorts(conf);
    expect(upstreams).toEqual(parleys.map(([, s]) => Number(s.environment?.PORT)));
    expect(listen).toBe(CLUSTER_PROXY_PORT);
    expect(compose.services.nginx?.volumes).toContain('./deploy/nginx/parley.conf:/etc/nginx/conf.d/default.conf:ro');
  });
});

describe('systemd unit', () => {
  const unit = read('deploy/systemd/parley.service');
  it('runs the entry point with its flags, sandboxed, with table variables', () => {
    expect(/^ExecStart=\/usr\/bin\/env (.*)$/m.exec(unit)?.[1]?.split(' ')).toEqual(ENTRY);
    for (const m of unit.matchAll(/^Environment=([A-Z_]+)=/gm)) {
      if (!NOT_OURS.has(m[1] as string)) expect(VARIABLES).toContain(m[1]);
    }
    for (const line of ['DynamicUser=yes', 'ProtectSystem=strict', 'StateDirectory=parley', 'NoNewPrivileges=yes']) {
      expect(unit).toContain(`\n${line}\n`);
    }
    expect(unit).toContain('Environment=DATA_DIR=/var/lib/parley');
  });
});
