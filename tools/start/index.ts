// The launcher's programmatic API, for end-to-end tests: `startPlatform()` runs the platform as
// `npm start` does and returns its URLs and controls.
export { startPlatform, Platform, type StartPlatformOptions, type RunningPlatform } from './platform';
export { apps } from './apps';
export type { AppSpec } from './app-spec';
export { StartError, StartAborted } from './wait';
