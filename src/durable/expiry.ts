/**
 * How long a durable ask may wait: its expiry must be positive and at most
 * `maxExpiresIn` (3650 days, about 10 years). The deadline (asked at +
 * expiry) is stored as epoch milliseconds in the asks table and sent to the
 * engine as its clock's wake-up time, a date; a deadline past the last
 * JavaScript date (year 275760) or past what the engine's message encodes
 * poisoned the store (decision 076). Ten years is far inside both and far
 * past any answer a human gives, so a typo such as `99999999999h` is caught.
 *
 * Only `effect/Duration` is imported: the command line checks `--expires`
 * with it before loading the durable surface.
 *
 * @since 0.2.0
 */
import * as Duration from "effect/Duration"
import * as Option from "effect/Option"

/**
 * The longest expiry a durable ask takes: 3650 days (about 10 years).
 *
 * @since 0.2.0
 */
export const maxExpiresIn: Duration.Duration = Duration.days(3650)

/**
 * Why `expiresIn` cannot be a durable ask's expiry, as a phrase; undefined
 * when it can.
 *
 * @since 0.2.0
 */
export const expiresInProblem = (expiresIn: Duration.Input): string | undefined => {
  const duration = Duration.fromInput(expiresIn)
  if (Option.isNone(duration)) return "the expiry is not a duration"
  if (!Duration.isGreaterThan(duration.value, Duration.zero)) return "the expiry must be positive"
  return Duration.isLessThanOrEqualTo(duration.value, maxExpiresIn)
    ? undefined
    : "the expiry must be at most 3650 days (about 10 years)"
}
