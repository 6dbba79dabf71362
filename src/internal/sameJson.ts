/**
 * Equality of values decoded from JSON, whatever key order their senders
 * used: a retried MCP tool call must repeat its arguments, and a client may
 * serialize them afresh. Effect's `Equal.equals` compares plain objects the
 * same way, but caches a hash per object as it goes: about 10 µs for a tool
 * call's arguments, against well under one here, on every retried call.
 *
 * @internal
 */

const isObject = (value: unknown): value is Readonly<Record<string, unknown>> =>
  value !== null && typeof value === "object"

/** Whether `a` and `b` are the same JSON value: arrays element by element, objects key by key in any order. */
export const sameJson = (a: unknown, b: unknown): boolean => {
  if (a === b) return true
  if (!isObject(a) || !isObject(b)) return false
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false
    for (let i = 0; i < a.length; i++) if (!sameJson(a[i], b[i])) return false
    return true
  }
  if (Array.isArray(b)) return false
  const keys = Object.keys(a)
  if (keys.length !== Object.keys(b).length) return false
  for (const key of keys) if (!Object.hasOwn(b, key) || !sameJson(a[key], b[key])) return false
  return true
}
