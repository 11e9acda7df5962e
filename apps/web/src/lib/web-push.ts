/**
 * This browser's Web Push subscription (server: /api/me/push): "New message from @bob"
 * while no tab of Parley is open, shown by the service worker (public/sw.js). The push
 * service is the browser's own; the server encrypts each push to this browser's keys
 * and never puts message text in it.
 */
import { API, type PushState, pushStateSchema } from '@app/protocol';
import { api } from './api';
import { serviceWorkerReady } from './service-worker';

export function pushSupported(): boolean {
  return 'serviceWorker' in navigator && 'PushManager' in window && 'Notification' in window;
}

/** Whether this browser is subscribed: on the server and still in the browser. */
export async function pushEnabled(): Promise<boolean> {
  if (!pushSupported()) return false;
  const state = await api(pushStateSchema, 'GET', API.push);
  if (!state.subscribed) return false;
  const reg = await serviceWorkerReady();
  return (await reg?.pushManager.getSubscription()) != null;
}

/** Asks for the notification permission if needed, subscribes and tells the server. */
export async function enablePush(): Promise<PushState> {
  if (!pushSupported()) throw new Error('This browser cannot receive push notifications.');
  const permission =
    Notification.permission === 'default' ? await Notification.requestPermission() : Notification.permission;
  if (permission !== 'granted') throw new Error('Notifications are blocked for this site in your browser settings.');
  const reg = await serviceWorkerReady();
  if (!reg) throw new Error('This browser cannot receive push notifications.');
  const { publicKey } = await api(pushStateSchema, 'GET', API.push);
  const sub =
    (await reg.pushManager.getSubscription()) ??
    (await reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: publicKey }));
  return api(pushStateSchema, 'PUT', API.push, sub.toJSON());
}

/** Unsubscribes this browser (at the push service and on the server). */
export async function disablePush(): Promise<PushState> {
  const reg = pushSupported() ? await serviceWorkerReady() : null;
  await (await reg?.pushManager.getSubscription())?.unsubscribe();
  return api(pushStateSchema, 'DELETE', API.push);
}
