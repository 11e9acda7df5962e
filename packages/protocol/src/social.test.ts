/** Profile, PIN and media-URL schemas of the social features, and the video embed rule. */
import { describe, expect, it } from 'vitest';
import { URL_MAX } from './constants.ts';
import { MSG } from './messages.ts';
import {
  imageUrlSchema,
  pinSchema,
  privacySchema,
  profilePicSchema,
  profileSchema,
  removePinSchema,
  SOCIAL_MSG,
  setPinSchema,
  verifyPinSchema,
  videoEmbedUrl,
  videoUrlSchema,
} from './social.ts';

type Schema = {
  safeParse(v: unknown): { success: boolean; data?: unknown; error?: { issues: { message: string; code: string }[] } };
};

function ok(schema: Schema, value: unknown): unknown {
  const r = schema.safeParse(value);
  expect(r.success, `${JSON.stringify(value)}: ${r.error?.issues[0]?.message}`).toBe(true);
  return r.data;
}

function bad(schema: Schema, value: unknown, message: string): void {
  const r = schema.safeParse(value);
  expect(r.success, JSON.stringify(value)).toBe(false);
  expect(r.error?.issues[0]?.message).toBe(message);
}

/** What a browser sends instead of the password: 32 bytes, base64url (keys.ts). */
const AUTH = 'Cyd5q4JwouEsU_g8Tc_XO3LtImyigufWYcjr0P6pPZw';

const YT = 'dQw4w9WgXcQ';
const YT_EMBED = `https://www.youtube-nocookie.com/embed/${YT}`;

describe('videoEmbedUrl', () => {
  it('turns every YouTube link form into the nocookie embed URL', () => {
    for (const link of [
      `https://www.youtube.com/watch?v=${YT}`,
      `https://youtube.com/watch?v=${YT}&t=42s`,
      `https://m.youtube.com/watch?feature=share&v=${YT}`,
      `http://www.youtube.com/watch?v=${YT}`,
      `HTTPS://WWW.YOUTUBE.COM/watch?v=${YT}`,
      `https://music.youtube.com/watch?v=${YT}`,
      `https://www.youtube.com/shorts/${YT}`,
      `https://www.youtube.com/live/${YT}?si=abc`,
      `https://www.youtube.com/embed/${YT}`,
      `https://www.youtube.com/v/${YT}`,
      `https://www.youtube-nocookie.com/embed/${YT}`,
      `https://youtu.be/${YT}`,
      `https://youtu.be/${YT}?t=10`,
    ]) {
      expect(videoEmbedUrl(link), link).toBe(YT_EMBED);
    }
    expect(videoEmbedUrl('https://youtu.be/a-b_c-d_e-f')).toBe('https://www.youtube-nocookie.com/embed/a-b_c-d_e-f');
  });

  it('turns Vimeo and player.vimeo links into the player URL', () => {
    expect(videoEmbedUrl('https://vimeo.com/76979871')).toBe('https://player.vimeo.com/video/76979871');
    expect(videoEmbedUrl('https://www.vimeo.com/76979871#t=3')).toBe('https://player.vimeo.com/video/76979871');
    expect(videoEmbedUrl('https://vimeo.com/channels/staffpicks/76979871')).toBe(
      'https://player.vimeo.com/video/76979871',
    );
    expect(videoEmbedUrl('https://player.vimeo.com/video/76979871?h=abc')).toBe(
      'https://player.vimeo.com/video/76979871',
    );
  });

  it('refuses other schemes, look-alike hosts, bad ids and other sites', () => {
    for (const link of [
      null,
      undefined,
      '',
      'not a url',
      'javascript:alert(1)',
      `javascript://www.youtube.com/watch?v=${YT}%0aalert(1)`,
      `data:text/html,<a href="https://youtu.be/${YT}">`,
      `ftp://www.youtube.com/watch?v=${YT}`,
      `https://youtube.com.evil.com/watch?v=${YT}`,
      `https://www.youtube.com.evil.com/embed/${YT}`,
      `https://evil.com/www.youtube.com/watch?v=${YT}`,
      `https://evil.com/?u=https://youtu.be/${YT}`,
      `https://notyoutube.com/watch?v=${YT}`,
      `https://youtube.com@evil.com/watch?v=${YT}`,
      `https://youtu.be.evil.com/${YT}`,
      `https://www.youtube.com./watch?v=${YT}`,
      'https://vimeo.com.evil.com/76979871',
      'https://evilvimeo.com/76979871',
      'https://player.vimeo.com.evil.com/video/76979871',
      'https://www.youtube.com/watch?v=short',
      `https://www.youtube.com/watch?v=${YT}X`,
      'https://www.youtube.com/watch?v=dQw4w9WgX%3C',
      'https://www.youtube.com/watch',
      'https://www.youtube.com/',
      `https://www.youtube.com/channel/${YT}`,
      `https://www.youtube.com/embed/${YT.slice(1)}`,
      'https://youtu.be/',
      'https://youtu.be/dQw4w9WgXc!',
      'https://vimeo.com/',
      'https://vimeo.com/staffpicks',
      'https://vimeo.com/1234567890123',
      'https://player.vimeo.com/76979871',
      'https://player.vimeo.com/video/abc',
      'https://example.com/video.mp4',
      'http://example.com/watch?v=dQw4w9WgXcQ',
    ]) {
      expect(videoEmbedUrl(link), String(link)).toBeNull();
    }
  });

  it('only ever returns one of the two fixed embed prefixes', () => {
    const inputs = [`https://youtu.be/${YT}"><script>`, `https://vimeo.com/1/"onload="x`, `https://youtu.be/${YT}`];
    for (const link of inputs) {
      const out = videoEmbedUrl(link);
      if (out !== null) {
        expect(out).toMatch(
          /^https:\/\/(www\.youtube-nocookie\.com\/embed\/[A-Za-z0-9_-]{11}|player\.vimeo\.com\/video\/[0-9]+)$/,
        );
      }
    }
  });
});

describe('videoUrlSchema and imageUrlSchema', () => {
  it('accept empty as null, recognised links as typed (trimmed), and refuse the rest', () => {
    expect(ok(videoUrlSchema, '')).toBeNull();
    expect(ok(videoUrlSchema, null)).toBeNull();
    expect(ok(videoUrlSchema, `  https://youtu.be/${YT}  `)).toBe(`https://youtu.be/${YT}`);
    bad(videoUrlSchema, 'https://example.com/v.mp4', SOCIAL_MSG.videoUrl);
    bad(videoUrlSchema, 'javascript:alert(1)', SOCIAL_MSG.videoUrl);
    bad(videoUrlSchema, 42, SOCIAL_MSG.videoUrl);
    bad(videoUrlSchema, `https://youtu.be/${YT}?x=${'a'.repeat(URL_MAX)}`, SOCIAL_MSG.urlTooLong);

    expect(ok(imageUrlSchema, '')).toBeNull();
    expect(ok(imageUrlSchema, 'https://i.example.com/a.png')).toBe('https://i.example.com/a.png');
    bad(imageUrlSchema, 'javascript:alert(1)', SOCIAL_MSG.imageUrl);
    bad(imageUrlSchema, 'data:image/png;base64,AAAA', SOCIAL_MSG.imageUrl);
  });
});

describe('profileSchema', () => {
  const base = { name: 'Ada Lovelace', phone: '5551234567', age: 30, profilePic: null };

  it('accepts a valid profile; trims; an empty picture URL means none', () => {
    expect(ok(profileSchema, base)).toEqual(base);
    expect(ok(profileSchema, { ...base, name: '  Ada  ', profilePic: '' })).toEqual({ ...base, name: 'Ada' });
    expect(ok(profileSchema, { ...base, profilePic: '  https://pics.example.com/me.png ' })).toEqual({
      ...base,
      profilePic: 'https://pics.example.com/me.png',
    });
    expect(ok(profileSchema, { ...base, profilePic: 'http://pics.example.com/me.png' })).toMatchObject({
      profilePic: 'http://pics.example.com/me.png',
    });
    ok(profileSchema, { ...base, phone: '+1 555 123-4567', age: 13 });
    ok(profileSchema, { ...base, age: 120 });
  });

  it('uses the sign-up rules and messages for name, phone and age', () => {
    bad(profileSchema, { ...base, name: 'A' }, MSG.name);
    bad(profileSchema, { ...base, name: '   ' }, MSG.name);
    bad(profileSchema, { ...base, name: 'x'.repeat(51) }, MSG.nameMax);
    bad(profileSchema, { ...base, phone: '12345' }, MSG.phone);
    bad(profileSchema, { ...base, phone: 'call me maybe' }, MSG.phone);
    bad(profileSchema, { ...base, age: 12 }, MSG.age);
    bad(profileSchema, { ...base, age: 121 }, MSG.age);
    bad(profileSchema, { ...base, age: 30.5 }, MSG.age);
    bad(profileSchema, { ...base, age: '30' }, MSG.age);
  });

  it('refuses picture URLs that are not http(s)', () => {
    for (const pic of [
      'javascript:alert(1)',
      'JavaScript:alert(1)',
      ' javascript:alert(1)',
      'data:image/png;base64,AAAA',
      'ftp://example.com/a.png',
      'file:///etc/passwd',
      'vbscript:msgbox',
      '//example.com/a.png',
      'not a url',
      42,
    ]) {
      bad(profileSchema, { ...base, profilePic: pic }, SOCIAL_MSG.pictureUrl);
    }
    bad(profilePicSchema, `https://e.com/${'a'.repeat(URL_MAX)}`, SOCIAL_MSG.urlTooLong);
  });

  it('is strict: unknown and missing fields are refused', () => {
    const extra = profileSchema.safeParse({ ...base, username: 'someone_else' });
    expect(extra.success).toBe(false);
    expect(extra.error?.issues[0]?.code).toBe('unrecognized_keys');
    expect(profileSchema.safeParse({ ...base, isAdmin: true }).success).toBe(false);
    const { profilePic: _, ...noPic } = base;
    bad(profileSchema, noPic, SOCIAL_MSG.pictureUrl);
  });
});

describe('PIN schemas', () => {
  it('a PIN is exactly six ASCII digits', () => {
    ok(pinSchema, '123456');
    ok(pinSchema, '000000');
    for (const pin of ['12345', '1234567', '12345a', ' 123456', '123456 ', '12 456', '١٢٣٤٥٦', '', 123456, null]) {
      bad(pinSchema, pin, SOCIAL_MSG.pinFormat);
    }
  });

  it('set, remove and verify bodies', () => {
    expect(ok(setPinSchema, { pin: '123456' })).toEqual({ pin: '123456' });
    expect(ok(setPinSchema, { pin: '123456', auth: AUTH })).toEqual({ pin: '123456', auth: AUTH });
    bad(setPinSchema, { pin: '12345' }, SOCIAL_MSG.pinFormat);
    expect(setPinSchema.safeParse({ pin: '123456', hash: 'x' }).success).toBe(false);
    // The password itself is never sent: only `auth`, exactly 43 base64url characters.
    expect(setPinSchema.safeParse({ pin: '123456', password: 'secret123' }).success).toBe(false);
    for (const auth of ['', 'secret123', AUTH.slice(1), `${AUTH}A`, `${AUTH.slice(1)}+`, `${AUTH.slice(1)}=`, 42]) {
      bad(setPinSchema, { pin: '123456', auth }, MSG.invalidCredentials);
    }

    ok(removePinSchema, { auth: AUTH });
    bad(removePinSchema, {}, MSG.invalidCredentials);
    bad(removePinSchema, { auth: '' }, MSG.invalidCredentials);
    bad(removePinSchema, { auth: 'secret123' }, MSG.invalidCredentials);
    expect(removePinSchema.safeParse({ password: 'secret123' }).success).toBe(false);
    expect(removePinSchema.safeParse({ auth: AUTH, password: 'secret123' }).success).toBe(false);

    ok(verifyPinSchema, { pin: '654321' });
    bad(verifyPinSchema, { pin: '65432' }, SOCIAL_MSG.pinFormat);
    bad(verifyPinSchema, {}, SOCIAL_MSG.pinFormat);
    expect(verifyPinSchema.safeParse({ pin: '654321', userId: 'x' }).success).toBe(false);
  });

  it('privacy settings are three booleans, nothing else', () => {
    ok(privacySchema, { readReceipts: true, lastSeen: false, requireRequest: true });
    expect(privacySchema.safeParse({ readReceipts: true, lastSeen: false }).success).toBe(false);
    expect(privacySchema.safeParse({ readReceipts: 1, lastSeen: false, requireRequest: true }).success).toBe(false);
    expect(
      privacySchema.safeParse({ readReceipts: true, lastSeen: false, requireRequest: true, isAdmin: true }).success,
    ).toBe(false);
  });
});
