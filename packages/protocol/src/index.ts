export * from './admin.ts';
export * from './api.ts';
export * from './chat.ts';
export * from './constants.ts';
export * from './social.ts';
export * from './text.ts';
export * from './validation.ts';
export * from './ws.ts';
