import { describe, expect, it } from 'vitest';
import { linkParts, safeHref } from './message-links';

const link = (text: string, href = text) => ({ kind: 'link', text, href });
const text = (t: string) => ({ kind: 'text', text: t });

describe('linkParts', () => {
  it('keeps plain text as one part, and nothing as nothing', () => {
    expect(linkParts('Hello there')).toEqual([text('Hello there')]);
    expect(linkParts('')).toEqual([]);
  });

  it('finds http and https addresses among text', () => {
    expect(linkParts('see https://example.com/a?b=1#c and http://x.org/')).toEqual([
      text('see '),
      link('https://example.com/a?b=1#c'),
      text(' and '),
      link('http://x.org/'),
    ]);
    expect(linkParts('https://example.com')).toEqual([link('https://example.com', 'https://example.com/')]);
  });

  it('leaves sentence punctuation and unopened brackets outside the link', () => {
    expect(linkParts('Go to https://example.com/docs.')).toEqual([
      text('Go to '),
      link('https://example.com/docs'),
      text('.'),
    ]);
    expect(linkParts('(https://example.com/x), ok?')).toEqual([
      text('('),
      link('https://example.com/x'),
      text('), ok?'),
    ]);
    expect(linkParts('https://en.wikipedia.org/wiki/Foo_(bar)!')).toEqual([
      link('https://en.wikipedia.org/wiki/Foo_(bar)'),
      text('!'),
    ]);
  });

  it('never links another scheme', () => {
    for (const t of [
      'javascript:alert(1)',
      'JavaScript://example.com/%0Aalert(1)',
      'data:text/html,<script>alert(1)</script>',
      'vbscript:msgbox',
      'file:///etc/passwd',
      'ftp://example.com/file',
      'mailto:a@example.com',
    ]) {
      expect(linkParts(t), t).toEqual([text(t)]);
    }
  });

  it('links only the http address inside other text, never what comes before it', () => {
    expect(linkParts('javascript:alert("https://x.org")')).toEqual([
      text('javascript:alert("'),
      link('https://x.org', 'https://x.org/'),
      text('")'),
    ]);
    // Inside a word the scheme does not start an address.
    expect(linkParts('xhttps://x.org')).toEqual([text('xhttps://x.org')]);
  });

  it('does not link an address without a host, and stops at markup characters', () => {
    expect(linkParts('http:// nothing')).toEqual([text('http:// nothing')]);
    expect(linkParts('https://x.org/<b>')).toEqual([link('https://x.org/'), text('<b>')]);
  });

  it('normalises the href (lower-case scheme and host), showing the text as typed', () => {
    expect(linkParts('HTTPS://Example.COM/Path')).toEqual([
      link('HTTPS://Example.COM/Path', 'https://example.com/Path'),
    ]);
  });
});

describe('safeHref', () => {
  it('accepts only http(s) with a host', () => {
    expect(safeHref('https://a.b/c')).toBe('https://a.b/c');
    expect(safeHref('javascript:alert(1)')).toBeNull();
    expect(safeHref('not a url')).toBeNull();
  });
});
