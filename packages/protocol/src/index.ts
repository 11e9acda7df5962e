export * from './api.ts';
export * from './constants.ts';
export * from './validation.ts';
