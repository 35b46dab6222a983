// Pricing shared by every app that prices traffic: which price row applies, and what a request costs.
export { costOf, type PriceRates, type TokenCounts, type UsageCounts } from './cost.js';
export { matchPricing, type PricingKey, specificity } from './match.js';
export { type ExtraPrices, extraPrices, imagePrice, type MediaUnits } from './media.js';
