import { fromBase64Url } from '@app/e2ee/bytes';
import { describe, expect, it } from 'vitest';
import { waveformOf } from './voice-recording';

describe('waveformOf', () => {
  it('averages the levels into at most 64 bars, the loudest at 255', () => {
    const levels = Array.from({ length: 640 }, (_, i) => (i < 320 ? 0.25 : 0.5));
    const bars = fromBase64Url(waveformOf(levels));
    expect(bars).toHaveLength(64);
    expect(bars[0]).toBe(128);
    expect(bars[63]).toBe(255);
    expect(fromBase64Url(waveformOf([0.1, 0.2]))).toEqual(new Uint8Array([128, 255]));
    expect(waveformOf([])).toBe('');
  });
});
