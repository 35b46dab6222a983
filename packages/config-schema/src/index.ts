// The gateway config object: schema, validation and normalisation (shared by gateway and control plane).
export {};
