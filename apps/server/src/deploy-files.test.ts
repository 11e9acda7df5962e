/**
 * The packaging files agree with the code (there is no Docker engine here to run them): the
 * Dockerfile, compose.yaml and the systemd unit run the server's entry point with the server's
 * V8 flags, set only variables of the configuration table, check readiness at /readyz; compose
 * runs what `npm run cluster` runs (ports, variables) behind deploy/nginx/parley.conf as it is.
 * Both nginx files pass `nginx -t` (the HTTPS one with a throwaway certificate) and proxy alike;
 * the Prometheus alerts and the Grafana dashboard ask only for metrics the server exports (or
 * Prometheus and node_exporter do), and the alerts pass `promtool` when it is installed.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { CLUSTER_FIRST_PORT, CLUSTER_PROXY_PORT, clusterProcessEnv } from './cluster-env.ts';
import { CONFIG_OPTIONS } from './config-options.ts';
import { Metrics } from './metrics/metrics.ts';
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

/** The first of `paths` that exists, else `name` when it runs from PATH, else null. */
function findTool(name: string, paths: string[] = []): string | null {
  const found = paths.find((p) => existsSync(p));
  if (found) return found;
  return spawnSync(name, ['--version']).error ? null : name;
}
const NGINX = findTool('nginx', ['/usr/sbin/nginx', '/usr/local/sbin/nginx', '/usr/local/nginx/sbin/nginx']);
const OPENSSL = findTool('openssl', ['/usr/bin/openssl']);
const PROMTOOL = findTool('promtool', ['/usr/bin/promtool']);

const scratch: string[] = [];
afterAll(() => {
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
});

/** `nginx -t` of `site` included in an http { } block, everything nginx writes kept in a temporary folder. */
function nginxTest(dir: string, site: string): { status: number | null; output: string } {
  for (const d of ['body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) mkdirSync(path.join(dir, d), { recursive: true });
  writeFileSync(path.join(dir, 'site.conf'), site);
  writeFileSync(
    path.join(dir, 'nginx.conf'),
    `pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events {}
http {
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  include ${dir}/site.conf;
}
`,
  );
  const r = spawnSync(
    NGINX as string,
    ['-t', '-p', dir, '-c', path.join(dir, 'nginx.conf'), '-e', path.join(dir, 'error.log')],
    { encoding: 'utf8' },
  );
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

/** The text of each `name … { … }` block (one level of nesting), in order. */
function blocks(conf: string, name: string): string[] {
  const out: string[] = [];
  for (const m of conf.matchAll(new RegExp(`^\\s*${name}\\b[^{\\n]*\\{`, 'gm'))) {
    let depth = 0;
    const start = m.index + (m[0].length - m[0].trimStart().length);
    for (let i = start; i < conf.length; i++) {
      if (conf[i] === '{') depth++;
      if (conf[i] === '}' && --depth === 0) {
        out.push(conf.slice(start, i + 1));
        break;
      }
    }
  }
  return out;
}

describe('deploy/nginx/parley-tls.conf', () => {
  const plain = read('deploy/nginx/parley.conf');
  const tls = read('deploy/nginx/parley-tls.conf');
  const [redirect, secure] = blocks(tls, 'server').filter((b) => b.includes('listen'));

  it('proxies as parley.conf does: the same upstream, WebSocket upgrade, attachments and pages', () => {
    expect(blocks(tls, 'upstream')).toEqual(blocks(plain, 'upstream'));
    expect(blocks(tls, 'map')).toEqual(blocks(plain, 'map'));
    const locations = blocks(plain, 'location');
    expect(locations.map((l) => l.split('\n')[0])).toEqual([
      'location /ws {',
      'location /api/attachments/ {',
      'location / {',
    ]);
    for (const l of locations) expect(secure).toContain(l);
    expect(secure).toMatch(/^\s*client_max_body_size 64k;$/m);
  });

  it("serves HTTPS with certbot's certificate, TLS 1.2/1.3, strong ciphers and HSTS", () => {
    expect(secure).toMatch(/^\s*listen 443 ssl http2;$/m);
    const domain = /^\s*server_name (\S+);$/m.exec(secure ?? '')?.[1];
    expect(secure).toContain(`ssl_certificate /etc/letsencrypt/live/${domain}/fullchain.pem;`);
    expect(secure).toContain(`ssl_certificate_key /etc/letsencrypt/live/${domain}/privkey.pem;`);
    expect(secure).toMatch(/^\s*ssl_protocols TLSv1\.2 TLSv1\.3;$/m);
    const ciphers = /^\s*ssl_ciphers (\S+);$/m.exec(secure ?? '')?.[1]?.split(':') ?? [];
    expect(ciphers.length).toBeGreaterThan(0);
    // Forward secrecy and AEAD only.
    for (const c of ciphers) expect(c).toMatch(/^ECDHE-(ECDSA|RSA)-(AES(128|256)-GCM-SHA(256|384)|CHACHA20-POLY1305)$/);
    expect(secure).toContain('add_header Strict-Transport-Security "max-age=63072000; includeSubDomains" always;');
    // The server's own header is hidden: one Strict-Transport-Security reaches the browser.
    expect(secure).toContain('proxy_hide_header Strict-Transport-Security;');
  });

  it("sends port 80 to HTTPS, except certbot's challenges", () => {
    expect(redirect).toMatch(/^\s*listen 80;$/m);
    const [challenge, rest] = blocks(redirect ?? '', 'location');
    expect(challenge).toMatch(/^location \/\.well-known\/acme-challenge\/ \{\s*root \S+;\s*\}$/);
    expect(rest).toMatch(/^location \/ \{\s*return 301 https:\/\/\$host\$request_uri;\s*\}$/);
  });

  it.skipIf(!NGINX || !OPENSSL)('both nginx files pass nginx -t (the HTTPS one with a self-signed certificate)', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'parley-nginx-'));
    scratch.push(dir);
    const cert = spawnSync(
      OPENSSL as string,
      [
        ...['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1'],
        ...['-subj', '/CN=chat.example.com', '-keyout', path.join(dir, 'privkey.pem')],
        ...['-out', path.join(dir, 'fullchain.pem')],
      ],
      { encoding: 'utf8' },
    );
    expect(cert.status, cert.stderr).toBe(0);
    const ours = tls.replace(/\/etc\/letsencrypt\/live\/[^/\s]+\//g, `${dir}/`);
    expect(ours).not.toContain('/etc/letsencrypt');
    for (const [name, site] of [
      ['parley.conf', plain],
      ['parley-tls.conf', ours],
    ] as const) {
      const r = nginxTest(path.join(dir, name), site);
      expect(r.status, `${name}: ${r.output}`).toBe(0);
      // nginx 1.25.1 and later warn that "listen … http2" is deprecated (the file says so); nothing else.
      const output = r.output.replace(/^.*the "listen \.\.\. http2" directive is deprecated.*$/gm, '');
      expect(output, name).not.toMatch(/\[(warn|emerg|crit|alert)\]/);
    }
  });
});

interface AlertRule {
  alert?: string;
  record?: string;
  expr?: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}
const ALERTS = 'deploy/prometheus/alerts.yml';
const rules = (parse(read(ALERTS)) as { groups: { name: string; rules: AlertRule[] }[] }).groups.flatMap(
  (g) => g.rules,
);
/** Metrics of others the rules may use: Prometheus's own per scrape, and node_exporter's. */
const EXTERNAL = new Set([
  'up',
  'node_filesystem_avail_bytes',
  'node_filesystem_size_bytes',
  'node_filesystem_readonly',
]);
/** PromQL's keywords: words of an expression that are no metric. */
const PROMQL_WORDS = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right']);
const PROMQL_OPERATORS = new Set(['and', 'or', 'unless', 'offset', 'bool', 'inf', 'nan']);

/** The metric names a PromQL expression reads: its words that are no function, keyword or label. */
function metricNames(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, '')
    .replace(/\[[^\]]*\]/g, '')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, '');
  return [...bare.matchAll(/(?<![\w:.])([a-zA-Z_:][\w:]*)(?![\w:])(?!\s*\()/g)]
    .map((m) => m[1] as string)
    .filter((w) => !PROMQL_WORDS.has(w) && !PROMQL_OPERATORS.has(w.toLowerCase()));
}

/**
 * Every series name the server exports, read from its registry's Prometheus text as a scraper
 * reads /metrics: counters and gauges as named, histograms' _bucket, _sum and _count.
 */
async function exported(): Promise<Set<string>> {
  const names = new Set<string>();
  for (const [, name, type] of (await new Metrics().registry.metrics()).matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    names.add(name as string);
    if (type === 'histogram') for (const s of ['_bucket', '_sum', '_count']) names.add(`${name}${s}`);
    if (type === 'summary') for (const s of ['_sum', '_count']) names.add(`${name}${s}`);
  }
  return names;
}

describe(ALERTS, () => {
  it('reads metric names out of PromQL', () => {
    expect(
      metricNames(
        'histogram_quantile(0.99, sum by (instance, le) (rate(a_bucket{x="y(z)"}[5m]))) > 1e3 and on (job) b offset 5m',
      ),
    ).toEqual(['a_bucket', 'b']);
  });

  it('has alerts only, each with for, a severity, a summary, a description and the README as runbook', () => {
    const readme = read('README.md');
    expect(readme).toMatch(/^### Alerts$/m);
    expect(rules.length).toBeGreaterThanOrEqual(6);
    for (const r of rules) {
      expect(r.alert, JSON.stringify(r)).toMatch(/^Parley[A-Za-z]+$/);
      expect(r.expr?.trim(), r.alert).toBeTruthy();
      expect(r.for, r.alert).toMatch(/^\d+[smh]$/);
      expect(['critical', 'warning'], r.alert).toContain(r.labels?.severity);
      expect(r.annotations?.summary, r.alert).toBeTruthy();
      expect(r.annotations?.description, r.alert).toBeTruthy();
      expect(r.annotations?.runbook, r.alert).toBe(`README.md#alerts (${r.alert})`);
      expect(readme, r.alert).toContain(`**${r.alert}**`);
    }
    expect(new Set(rules.map((r) => r.alert)).size).toBe(rules.length);
  });

  it('and the Grafana dashboard ask only for metrics the server exports (or Prometheus and node_exporter)', async () => {
    const ours = await exported();
    const dashboard = JSON.parse(read('deploy/grafana/parley-dashboard.json')) as {
      panels: { title: string; targets: { expr: string }[] }[];
    };
    const queries = [
      ...rules.map((r) => ({ where: `${ALERTS}: ${r.alert}`, expr: r.expr ?? '' })),
      ...dashboard.panels.flatMap((p) => p.targets.map((t) => ({ where: `dashboard: ${p.title}`, expr: t.expr }))),
    ];
    const used = new Set<string>();
    for (const q of queries) {
      const names = metricNames(q.expr);
      expect(names.length, q.where).toBeGreaterThan(0);
      for (const n of names) {
        expect(ours.has(n) || EXTERNAL.has(n), `${q.where}: ${n}`).toBe(true);
        used.add(n);
      }
    }
    // The ones the alerts are about.
    for (const n of [
      'up',
      'parley_send_seconds_bucket',
      'parley_update_lag_seconds_bucket',
      'parley_rate_limited_total',
      'parley_sign_in_failures_total',
      'node_filesystem_avail_bytes',
    ]) {
      expect(used).toContain(n);
    }
  });

  it.skipIf(!PROMTOOL)('passes promtool check rules, and its unit tests (alerts.test.yml)', () => {
    const check = spawnSync(PROMTOOL as string, ['check', 'rules', ALERTS], { cwd: ROOT, encoding: 'utf8' });
    expect(check.status, `${check.stdout}${check.stderr}`).toBe(0);
    expect(check.stdout).toContain(`SUCCESS: ${rules.length} rules found`);
    const test = spawnSync(PROMTOOL as string, ['test', 'rules', 'alerts.test.yml'], {
      cwd: path.join(ROOT, 'deploy/prometheus'),
      encoding: 'utf8',
    });
    expect(test.status, `${test.stdout}${test.stderr}`).toBe(0);
  });
});
