/**
 * Realistic exports of the original app's tree database (spec section 3), for the
 * import-rtdb tests: made from a seed, so the same every run. Keys come sorted as the
 * original's exports write them (`messages` before `users`: the import needs two passes).
 */
import { writeFileSync } from 'node:fs';

/** A small fast generator of numbers in [0, 1) from a seed (mulberry32). */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const UID_CHARS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const PUSH_CHARS = '-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz';

function pick(rand: () => number, chars: string, n: number): string {
  let s = '';
  for (let i = 0; i < n; i++) s += chars[Math.floor(rand() * chars.length)];
  return s;
}

/** A push id as the original made them: 8 characters of time, then 12 random ones. */
function pushId(rand: () => number, time: number): string {
  let t = time;
  let head = '';
  for (let i = 0; i < 8; i++) {
    head = PUSH_CHARS[t % 64] + head;
    t = Math.floor(t / 64);
  }
  return head + pick(rand, PUSH_CHARS, 12);
}

export const chatKey = (a: string, b: string) => [a, b].sort().join('_');

export interface GeneratedExport {
  tree: Record<string, unknown>;
  uids: string[];
  /** What the import should make of it. */
  expect: {
    users: number;
    chats: number;
    messages: number;
    edited: number;
    deleted: number;
    contacts: number;
    requests: number;
    broadcasts: number;
    /** Per uid: chat keys archived / locked. */
    archived: [string, string][];
    locked: [string, string][];
  };
}

const WORDS = 'hello see you at the harbour tomorrow bring coffee ok sure why not lunch later call me'.split(' ');

/**
 * A few users; one chat of `bigChat` messages and a few small ones; edited and deleted
 * messages; an archived chat, a locked one (its user has a PIN); pending requests,
 * contacts, broadcasts, privacy settings, the help link and typing flags.
 */
export function generateExport(seed = 16, bigChat = 10_000): GeneratedExport {
  const rand = seeded(seed);
  const start = Date.UTC(2024, 0, 1);
  const names = ['ada', 'bruno', 'chiara', 'dmitri', 'esme'];
  const uids = names.map(() => pick(rand, UID_CHARS, 28));
  const users: Record<string, unknown> = {};
  const usernames: Record<string, string> = {};
  names.forEach((name, i) => {
    const uid = uids[i] as string;
    users[uid] = {
      username: `${name}_${i}`,
      name: `${name[0]?.toUpperCase()}${name.slice(1)} Example`,
      email: `${name}@example.com`,
      phone: `55512345${String(i).padStart(2, '0')}`,
      age: 20 + i * 7,
      profilePic: i === 0 ? 'https://images.example.com/ada.png' : '',
      createdAt: start - (i + 1) * 86_400_000,
      status: i === 1 ? 'online' : 'offline',
      lastSeen: start + i * 1000,
      ...(i === 0 ? { verified: true, pin: '246810' } : {}),
      ...(i === 4 ? { blocked: true } : {}),
    };
    usernames[`${name}_${i}`] = uid;
  });
  const [ada, bruno, chiara, dmitri] = uids as [string, string, string, string];
  const messages: Record<string, Record<string, unknown>> = {};
  let edited = 0;
  let deleted = 0;
  let total = 0;
  const userChats: Record<string, Record<string, unknown>> = {};
  const chat = (a: string, b: string, count: number, flags: Record<string, Record<string, unknown>> = {}) => {
    const key = chatKey(a, b);
    const box: Record<string, unknown> = {};
    let t = start + Math.floor(rand() * 1e6);
    let last = '';
    for (let i = 0; i < count; i++) {
      t += 1 + Math.floor(rand() * 60_000);
      const sender = rand() < 0.5 ? a : b;
      const words = Array.from({ length: 1 + Math.floor(rand() * 12) }, () => WORDS[Math.floor(rand() * WORDS.length)]);
      const m: Record<string, unknown> = {
        senderId: sender,
        text: `${words.join(' ')} #${i}`,
        timestamp: t,
        status: i < count - 3 ? 'read' : 'sent',
        deleted: false,
        ...(i < count - 3 ? { deliveredAt: t + 500, readAt: t + 900 } : {}),
      };
      if (i % 97 === 5) {
        m.text = `${m.text} (edited)`;
        m.edited = true;
        edited++;
      }
      if (i % 131 === 7) {
        m.text = 'This message deleted';
        m.deleted = true;
        m.status = 'sent';
        m.edited = false;
        if (i % 97 === 5) edited--;
        deleted++;
      }
      box[pushId(rand, t)] = m;
      last = String(m.text);
    }
    messages[key] = box;
    total += count;
    for (const [me] of [[a], [b]] as const) {
      userChats[me] ??= {};
      (userChats[me] as Record<string, unknown>)[key] = {
        lastMessage: last,
        timestamp: t,
        unreadCount: 0,
        ...(flags[me] ?? {}),
      };
    }
    return key;
  };
  const big = chat(ada, bruno, bigChat, { [bruno]: { unreadCount: 3 } });
  const archivedChat = chat(ada, chiara, 40, { [chiara]: { archived: true } });
  const lockedChat = chat(ada, dmitri, 25, { [ada]: { locked: true } });
  chat(bruno, chiara, 12);
  const tree = {
    archives: { [bruno]: { [ada]: { lastMessage: 'x', timestamp: start } } },
    contacts: {
      [ada]: { [bruno]: true, [chiara]: true },
      [bruno]: { [ada]: true },
      [chiara]: { [ada]: true },
    },
    messages,
    notifications: {
      [pushId(rand, start)]: {
        message: 'Welcome to the app',
        videoUrl: '',
        imageUrl: '',
        timestamp: start,
        from: 'admin',
      },
      [pushId(rand, start + 5)]: {
        message: 'Maintenance tonight',
        videoUrl: 'https://www.youtube.com/watch?v=dQw4w9WgXcQ',
        imageUrl: 'https://images.example.com/maint.png',
        timestamp: start + 5,
        from: 'admin',
      },
    },
    settings: { helpLink: 'https://help.example.com/' },
    typing: { [big]: { [ada]: false, [bruno]: true } },
    userChats,
    userNotifications: {
      [dmitri]: {
        [pushId(rand, start + 9)]: {
          type: 'request',
          from: chiara,
          fromUsername: 'chiara_2',
          message: 'hi, may I write to you?',
          timestamp: start + 9,
          read: false,
        },
      },
      [bruno]: {
        [pushId(rand, start + 11)]: {
          type: 'request',
          from: dmitri,
          fromUsername: 'dmitri_3',
          message: 'hello from dmitri',
          timestamp: start + 11,
          read: true,
        },
      },
    },
    userSettings: {
      [dmitri]: { privacy: { readReceipts: false, lastSeen: true, requireRequest: true } },
    },
    usernames,
    users,
  };
  return {
    tree,
    uids,
    expect: {
      users: names.length,
      chats: 4,
      messages: total,
      edited,
      deleted,
      contacts: 2,
      requests: 2,
      broadcasts: 2,
      archived: [
        [chiara, archivedChat],
        [bruno, big],
      ],
      locked: [[ada, lockedChat]],
    },
  };
}

/** Writes a tree as the original's export does (one JSON document). */
export function writeExport(file: string, tree: unknown): void {
  writeFileSync(file, JSON.stringify(tree));
}
