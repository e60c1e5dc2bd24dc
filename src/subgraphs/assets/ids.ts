/** Ids users choose for saved objects (filters, views, conversions): plain, at most 128. */
export const PLAIN_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
export const PLAIN_ID_RULE = 'id must be 1 to 128 letters, digits, ".", "_" or "-".';
