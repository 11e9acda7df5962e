import { describe, expect, it } from 'vitest';
import { pinIdentities } from './pins';

describe('identity pins', () => {
  it('trusts every listed identity at first sight, and saves them', () => {
    const r = pinIdentities(['ik1', 'ik2'], 'ik2', null);
    expect([...r.trusted]).toEqual(['ik1', 'ik2']);
    expect(r.save).toEqual(['ik1', 'ik2']);
  });

  it('adds a new current identity (a reset), and changes nothing when it is known', () => {
    const r = pinIdentities(['ik1', 'ik2', 'ik3'], 'ik3', ['ik1', 'ik2']);
    expect([...r.trusted]).toEqual(['ik1', 'ik2', 'ik3']);
    expect(r.save).toEqual(['ik1', 'ik2', 'ik3']);
    expect(pinIdentities(['ik1', 'ik2'], 'ik2', ['ik1', 'ik2']).save).toBeNull();
  });

  it('never trusts an earlier identity that appears after first sight', () => {
    const r = pinIdentities(['ik1', 'forged', 'ik2'], 'ik2', ['ik1', 'ik2']);
    expect(r.trusted.has('forged')).toBe(false);
    expect(r.save).toBeNull();
  });
});
