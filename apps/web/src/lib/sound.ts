/**
 * The optional sound for messages that arrive while Parley's tab is in the background
 * (Settings › Notifications; off until turned on, remembered per browser). A short two-note
 * chime made with Web Audio: no file to fetch.
 */
import { useSyncExternalStore } from 'react';

const KEY = 'parley:sound';
const listeners = new Set<() => void>();

export function soundEnabled(): boolean {
  try {
    return localStorage.getItem(KEY) === '1';
  } catch {
    return false;
  }
}

export function setSoundEnabled(on: boolean): void {
  try {
    if (on) localStorage.setItem(KEY, '1');
    else localStorage.removeItem(KEY);
  } catch {
    // Storage refused (a private mode): the choice lasts until the page closes.
  }
  for (const l of listeners) l();
}

export function useSoundEnabled(): boolean {
  return useSyncExternalStore(
    (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    soundEnabled,
    () => false,
  );
}

let audio: AudioContext | null = null;

/** Plays the chime (quietly: two sine notes, 0.25 s in all); silent where Web Audio is missing. */
export function playChime(): void {
  if (typeof AudioContext === 'undefined') return;
  try {
    audio ??= new AudioContext();
    void audio.resume();
    const start = audio.currentTime;
    for (const [i, freq] of [880, 1320].entries()) {
      const osc = audio.createOscillator();
      const gain = audio.createGain();
      const at = start + i * 0.12;
      osc.type = 'sine';
      osc.frequency.value = freq;
      gain.gain.setValueAtTime(0.0001, at);
      gain.gain.exponentialRampToValueAtTime(0.15, at + 0.02);
      gain.gain.exponentialRampToValueAtTime(0.0001, at + 0.12);
      osc.connect(gain).connect(audio.destination);
      osc.start(at);
      osc.stop(at + 0.13);
    }
  } catch {
    // An audio device refused: no sound.
  }
}
