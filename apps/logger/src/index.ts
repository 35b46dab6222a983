// Public surface for tests and tools that embed the logger in-process.
export { createApp, type LoggerApp } from './app.js';
export { type LoggerConfig, loadLoggerConfig, settingsSchema } from './config.js';
