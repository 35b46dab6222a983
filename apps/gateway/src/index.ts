// Public surface for tests and tools that embed the gateway in-process.
export { createApp, type GatewayApp } from './app.js';
export { type GatewayConfig, loadGatewayConfig, settingsSchema } from './config.js';
