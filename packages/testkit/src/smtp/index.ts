// A real SMTP server for tests of alert e-mail (the `smtp-server` package on loopback).
export { type ReceivedMail, startSmtpServer, subjectOf, type TestSmtpServer, textOf } from './smtp-server.js';
