/**
 * What the configuration table (config-options.ts) says, for people: `npm start -- --help`,
 * `.env.example` and the README's table. `npm run config-docs` rewrites the last two;
 * config-docs.test.ts fails while they differ from the table.
 */
import { CONFIG_OPTIONS, type ConfigOption } from './config-options.ts';

function shownDefault(o: ConfigOption): string {
  if (o.shown !== undefined) return o.shown;
  if (o.default === null || o.default === false) return 'unset';
  return String(o.default);
}

/** The text of `--help`. */
export function helpText(): string {
  const lines = [
    'Parley server. Every setting is an environment variable (or a line of .env in the working',
    'directory; variables already set win). Defaults are built in.',
    '',
  ];
  for (const o of CONFIG_OPTIONS) {
    lines.push(`  ${o.name}  (default: ${shownDefault(o)})`);
    lines.push(`      ${o.doc.replaceAll('`', '')}`);
  }
  return `${lines.join('\n')}\n`;
}

/** `.env.example`: every variable commented out at its default, with what it does. */
export function envExample(): string {
  const out = [
    '# Parley: copy to .env (next to where you run `npm start`) and uncomment what you change.',
    '# Variables set in the environment win over this file. Made from',
    '# apps/server/src/config-options.ts by `npm run config-docs`: edit the table, not this file.',
    '',
  ];
  for (const o of CONFIG_OPTIONS) {
    out.push(`# ${o.doc.replaceAll('`', '')}`);
    const value = o.default === null || o.default === false ? '' : String(o.default);
    out.push(
      o.shown !== undefined && o.default === null ? `# ${o.name}=  (default: ${o.shown})` : `# ${o.name}=${value}`,
    );
    out.push('');
  }
  return out.join('\n');
}

export const README_START = '<!-- config-table:start (made by `npm run config-docs`) -->';
export const README_END = '<!-- config-table:end -->';

/** The README's table, between its markers. */
export function readmeTable(): string {
  const rows = CONFIG_OPTIONS.map((o) => {
    const d = shownDefault(o);
    const shown = d === 'unset' || d === 'generated' ? d : `\`${d}\``;
    return `| \`${o.name}\` | ${shown} | ${o.doc.replaceAll('|', '\\|')} |`;
  });
  return [README_START, '| variable | default | what it does |', '|---|---|---|', ...rows, README_END].join('\n');
}

/** `readme` with its table replaced by the table's current text. */
export function withReadmeTable(readme: string): string {
  const start = readme.indexOf(README_START);
  const end = readme.indexOf(README_END);
  if (start < 0 || end < start) throw new Error('README: the configuration table markers are missing');
  return readme.slice(0, start) + readmeTable() + readme.slice(end + README_END.length);
}
