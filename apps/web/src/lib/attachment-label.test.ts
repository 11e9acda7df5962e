import type { AttachmentRef } from '@app/e2ee';
import { describe, expect, it } from 'vitest';
import { attachmentLabel, formatBytes, formatDuration, previewText } from './attachment-label';

const ref = (over: Partial<AttachmentRef>): AttachmentRef => ({
  id: 'x'.repeat(22),
  key: 'k'.repeat(43),
  digest: 'd'.repeat(43),
  size: 1,
  type: '',
  name: 'report.pdf',
  kind: 'file',
  ...over,
});

describe('attachment labels', () => {
  it('names photos, files and voice messages, with the caption when there is one', () => {
    expect(attachmentLabel(ref({ kind: 'image' }))).toBe('📷 Photo');
    expect(attachmentLabel(ref({}))).toBe('📎 report.pdf');
    expect(attachmentLabel(ref({ kind: 'voice', durationMs: 12_400 }))).toBe('🎤 Voice message (0:12)');
    const shown = (text: string, a: AttachmentRef) => ({ kind: 'text' as const, text, attachments: [a] });
    expect(previewText(shown('', ref({ kind: 'image' })))).toBe('📷 Photo');
    expect(previewText(shown('At the beach', ref({ kind: 'image' })))).toBe('📷 At the beach');
    expect(previewText(shown('', ref({})))).toBe('📎 report.pdf');
    expect(previewText({ kind: 'text', text: 'hi' })).toBe('hi');
  });

  it('writes sizes and durations as people read them', () => {
    expect(formatBytes(1)).toBe('1 byte');
    expect(formatBytes(999)).toBe('999 bytes');
    expect(formatBytes(1_234)).toBe('1.2 KB');
    expect(formatBytes(52_428_800)).toBe('52 MB');
    expect(formatDuration(3_723_000)).toBe('1:02:03');
    expect(formatDuration(65_000)).toBe('1:05');
  });
});
