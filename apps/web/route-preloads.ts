/**
 * Build time, the first screens' code in few files and fetched early.
 *
 * Chunks (routeChunkGroups): everything the entry imports in one chunk ('boot'), and the
 * code of the first screens a visitor opens by URL in one chunk each: the sign-in and
 * sign-up forms ('auth'), the intro ('welcome'), the signed-in chat list ('signed-in')
 * and the conversation ('chat'), what the forms and the chat list share in 'common'.
 * Left to themselves, the bundler makes a chunk of every set of screens sharing a module:
 * /signin needed 23 files, /home 50, and every file costs a round trip on a slow phone.
 *
 * The session question preloaded in every shell (see transformIndexHtml below).
 *
 * Shells: one HTML shell per first screen (dist/routes/<segment>.html), the app's
 * index.html plus a <link rel="modulepreload"> for every script that screen's lazy route
 * chunks need. The server sends it for that path (apps/server/src/http/web-app.ts), so a
 * browser opening /signin or /home fetches the screen's code alongside the entry instead
 * of after it has run (and, signed in, after the session answer).
 */
import path from 'node:path';
import { API } from '@app/protocol';
import type { CodeSplittingGroup, OutputBundle, OutputChunk } from 'rolldown';
import type { Plugin } from 'vite';

/** Every signed-in screen renders inside these lazy modules (components/guards.tsx, app.tsx). */
const SIGNED_IN = ['src/components/signed-in-effects.tsx', 'src/components/layout/two-pane.tsx'];
/**
 * …once the session answer is checked with the schemas lib/session.ts imports: preloaded with
 * the signed-in screens, but a chunk of its own (the forms import it on submit).
 */
const SESSION_SCHEMAS = 'src/lib/answer-schemas.ts';
const page = (name: string) => `src/pages/${name}.tsx`;

/** The first path segment, and the lazy modules its screen renders. */
export const ROUTE_MODULES: Record<string, string[]> = {
  welcome: [page('welcome')],
  signin: [page('sign-in')],
  signup: [page('sign-up')],
  'forgot-password': [page('forgot-password')],
  'reset-password': [page('reset-password')],
  'verify-email': [page('verify-email')],
  terms: [page('terms')],
  privacy: [page('privacy')],
  about: [page('about')],
  blocked: [page('blocked')],
  home: [...SIGNED_IN, page('home')],
  // /chat/:userId is the chat list with the conversation beside it (or over it on a phone).
  chat: [...SIGNED_IN, page('home'), page('chat')],
  contacts: [...SIGNED_IN, page('contacts')],
  settings: [...SIGNED_IN, page('settings')],
  account: [...SIGNED_IN, page('account')],
  profile: [...SIGNED_IN, page('profile')],
  'privacy-settings': [...SIGNED_IN, page('privacy-settings')],
  sessions: [...SIGNED_IN, page('sessions')],
  archive: [...SIGNED_IN, page('archive')],
  locked: [...SIGNED_IN, page('locked')],
  notifications: [...SIGNED_IN, page('notifications')],
  admin: [...SIGNED_IN, page('admin')],
};

/** The protocol's zod-free constants (paths, messages, limits); and zod with the rest of it. */
const PROTOCOL_CONSTANTS = /packages[\\/]protocol[\\/]src[\\/](?:api-paths|messages|constants)\.ts$/;
const SCHEMA_MODULES = /node_modules[\\/]zod[\\/]|packages[\\/]protocol[\\/]src[\\/]/;

/** The chunk groups, in the order they claim modules: a module goes to the first that needs it. */
const GROUPS: [name: string, roots: string[]][] = [
  ['auth', [page('sign-in'), page('sign-up')]],
  ['welcome', [page('welcome')]],
  ['signed-in', ROUTE_MODULES.home ?? []],
  ['chat', [page('chat')]],
];

/**
 * output.codeSplitting.groups: the module graph is read once the build has it (buildEnd),
 * and each group's test asks which group a module was given.
 */
export function routeChunkGroups(): { plugin: Plugin; groups: CodeSplittingGroup[] } {
  const groupOf = new Map<string, string>();
  let root = '';
  const plugin: Plugin = {
    name: 'parley-route-chunks',
    apply: 'build',
    configResolved(config) {
      root = config.root;
    },
    buildEnd() {
      const closure = (ids: string[], into = new Set<string>()): Set<string> => {
        for (const id of ids) {
          if (into.has(id)) continue;
          const info = this.getModuleInfo(id);
          if (!info) continue;
          into.add(id);
          closure([...info.importedIds], into);
        }
        return into;
      };
      const abs = (mods: string[]) => mods.map((m) => path.resolve(root, m));
      // What the entry needs goes to the 'boot' group first ($initial: rolldown's own view of
      // it, after tree-shaking), whatever is claimed here.
      const reach = new Map(GROUPS.map(([name, roots]) => [name, closure(abs(roots))]));
      const claim = (name: string, ids: Iterable<string>) => {
        for (const id of ids) if (!groupOf.has(id)) groupOf.set(id, name);
      };
      // What the forms and the chat list share, libraries included; otherwise source modules
      // only (the app's and the workspace packages'): a library's index reaches all of it
      // (every icon) before tree-shaking, so a library follows the first module that needs it.
      const src = `${path.sep}src${path.sep}`;
      const auth = reach.get('auth') ?? new Set<string>();
      claim(
        'common',
        [...(reach.get('signed-in') ?? [])].filter((id) => auth.has(id)),
      );
      for (const [name, ids] of reach)
        claim(
          name,
          [...ids].filter((id) => id.includes(src)),
        );
    },
  };
  const group = (name: string, priority: number): CodeSplittingGroup => ({
    name,
    priority,
    test: (id) => groupOf.get(id) === name,
  });
  return {
    plugin,
    groups: [
      { name: 'boot', tags: ['$initial'], priority: 100 },
      // Each icon is a few hundred bytes: all of them in one file rather than in whichever
      // screen's chunk met them first (the intro would load the chat list's code for three).
      { name: 'icons', test: /lucide-react[\\/]dist[\\/]esm[\\/]icons[\\/]/, priority: 95 },
      // zod and the protocol's schemas in a file of their own: the forms reach them through
      // @app/protocol's index before tree-shaking, but load them only on submit
      // (lib/answer-schemas.ts); in 'common' every first screen would evaluate zod. The
      // protocol's plain constants stay with the screens that show them.
      { name: 'schemas', test: SCHEMA_MODULES, priority: 92 },
      // …and those constants together (what the entry needs of them stays in 'boot').
      { name: 'protocol-text', test: PROTOCOL_CONSTANTS, priority: 93 },
      group('common', 90),
      group('auth', 80),
      group('signed-in', 70),
      group('welcome', 60),
      group('chat', 50),
    ],
  };
}

function chunks(bundle: OutputBundle): OutputChunk[] {
  return Object.values(bundle).filter((f): f is OutputChunk => f.type === 'chunk');
}

/** `start` and every chunk it imports statically, transitively. */
function closure(start: OutputChunk, byName: Map<string, OutputChunk>, into = new Set<string>()): Set<string> {
  if (into.has(start.fileName)) return into;
  into.add(start.fileName);
  for (const name of start.imports) {
    const next = byName.get(name);
    if (next) closure(next, byName, into);
  }
  return into;
}

export function routePreloads(): Plugin {
  let root = '';
  return {
    name: 'parley-route-preloads',
    apply: 'build',
    enforce: 'post',
    configResolved(config) {
      root = config.root;
    },
    // Every screen asks who is signed in as it starts (lib/session.ts): the question leaves
    // with the HTML instead of after the entry has loaded and run, and a signed-in screen
    // has its answer by the time its code is ready. `crossorigin` makes it the request the
    // app's fetch() sends (mode cors, same-origin credentials), so the app uses this answer.
    transformIndexHtml: {
      order: 'post',
      handler: () => [
        {
          tag: 'link',
          attrs: { rel: 'preload', href: API.session, as: 'fetch', crossorigin: 'anonymous' },
          injectTo: 'head',
        },
      ],
    },
    generateBundle(_options, bundle) {
      const html = bundle['index.html'];
      if (html?.type !== 'asset' || typeof html.source !== 'string') {
        this.warn('no index.html in the bundle: no route shells');
        return;
      }
      const all = chunks(bundle);
      const byName = new Map(all.map((c) => [c.fileName, c]));
      const byModule = new Map(all.flatMap((c) => c.moduleIds.map((id) => [id, c] as const)));
      const entry = all.find((c) => c.isEntry);
      if (!entry) return;
      // The entry and its imports are in index.html already.
      const loaded = closure(entry, byName);
      const base = html.source;
      for (const [segment, modules] of Object.entries(ROUTE_MODULES)) {
        const files = new Set<string>();
        const signedIn = SIGNED_IN.every((m) => modules.includes(m));
        for (const mod of signedIn ? [SESSION_SCHEMAS, ...modules] : modules) {
          const chunk = byModule.get(path.resolve(root, mod));
          if (!chunk) {
            this.warn(`route /${segment}: ${mod} is in no chunk; no preload for it`);
            continue;
          }
          closure(chunk, byName, files);
        }
        const links = [...files]
          .filter((f) => !loaded.has(f))
          .map((f) => `  <link rel="modulepreload" crossorigin href="/${f}">\n  `)
          .join('');
        this.emitFile({
          type: 'asset',
          fileName: `routes/${segment}.html`,
          source: base.replace('</head>', `${links}</head>`),
        });
      }
    },
  };
}
