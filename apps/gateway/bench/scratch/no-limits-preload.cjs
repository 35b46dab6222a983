process.env.POLICY_ENABLED = 'OFF';
process.env.USAGE_LIMITS_ENABLED = 'OFF';
