/**
 * Durations as people write them: `--timeout 30s` on the command line, a
 * request's own `timeout: "5m"`. One parser, so that both accept the same
 * words.
 *
 * @internal
 */
import * as Duration from "effect/Duration"
import * as Option from "effect/Option"

const shortForm = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)\s*$/
const shortUnits = { ms: "millis", s: "seconds", m: "minutes", h: "hours", d: "days" } as const

/**
 * Parses a duration as written by a person: the short forms `500ms`, `30s`,
 * `5m`, `1h`, `2d`, or anything Effect's `Duration` decodes, such as
 * `5 minutes` or `1.5 seconds`. Only finite, positive durations are accepted.
 */
export const parseTimeout = (text: string): Option.Option<Duration.Duration> => {
  const short = shortForm.exec(text)
  const duration = short
    ? Duration.fromInput(`${Number(short[1])} ${shortUnits[short[2] as keyof typeof shortUnits]}`)
    : Duration.fromInput(text.trim() as Duration.Input)
  return Option.filter(duration, (d) => Duration.isFinite(d) && Duration.isGreaterThan(d, Duration.zero))
}

/** What a bad duration is told: the forms that are accepted. */
export const durationExpected = "a duration longer than zero, such as 30s, 5m, 1h or \"5 minutes\""
