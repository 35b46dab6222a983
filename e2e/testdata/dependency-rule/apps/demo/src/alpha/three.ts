// Fixture: a leaf of alpha.
export const three = 3;
