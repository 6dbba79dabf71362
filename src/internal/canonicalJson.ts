/**
 * JSON with every object's keys in sorted order, for comparing values
 * decoded from JSON whatever key order their sender used (a retried MCP tool
 * call, a durable ask asked again).
 *
 * @internal
 */

/** `value` as JSON, object keys sorted at every depth. */
export const canonicalJson = (value: unknown): string =>
  JSON.stringify(value, (_key, inner: unknown) =>
    inner !== null && typeof inner === "object" && !Array.isArray(inner)
      ? Object.fromEntries(Object.entries(inner).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : inner) ?? ""
