// Diagnosis only: `--require` this into a gateway to point it at another Redis than the one its
// starter set (GAP_REDIS_URL wins over REDIS_URL), before its settings are read.
if (process.env.GAP_REDIS_URL) process.env.REDIS_URL = process.env.GAP_REDIS_URL;
