// AES-256-GCM envelopes for provider credentials (control plane seals, gateway opens).
export {};
