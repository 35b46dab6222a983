// Public surface of the gateway's request pipeline (gateway-pipeline.ts).

export { PROVIDER_CALL_SCOPE } from './authorise.js';
export { createGatewayPipeline, type GatewayPipeline, type PipelineDeps } from './gateway-pipeline.js';
export { dataPlaneMetrics } from './metrics.js';
