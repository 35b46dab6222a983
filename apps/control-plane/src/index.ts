// Public surface for tests and tools that embed the control plane in-process.
export { type ControlPlaneApp, createApp } from './app.js';
export { type ControlPlaneConfig, loadControlPlaneConfig, settingsSchema } from './config.js';
