/**
 * One line read from a TTY without echo: how plain mode (numbered lines on
 * the terminal, for screen readers) takes a secret question's answer. The
 * terminal is put in raw mode for that line, so nothing typed is shown, and
 * the editing a cooked line gives is done here: Backspace deletes the last
 * character, Ctrl+U the whole line, Ctrl+W the word before the end; escape
 * sequences (arrow keys) and other control keys are dropped. Enter ends the
 * line; Ctrl+C fails `AskAborted` at once (raw mode sends no SIGINT), Ctrl+D
 * on an empty line `AskCancelled`, as they do in the menus. The terminal is
 * back in cooked mode when the line ends, however it ends.
 *
 * @internal
 */
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import { StringDecoder } from "node:string_decoder"
import type * as tty from "node:tty"
import { AskAborted, AskCancelled } from "../UserInteractionError.js"

/** How a hidden line can end other than with its text. */
export type HiddenLineEnd = AskAborted | AskCancelled | Cause.Done

/** The line being typed, and where an escape sequence being skipped is. */
interface Typing {
  chars: Array<string>
  /** `"esc"` after ESC, `"csi"` inside `ESC [` or `ESC O` until its final byte. */
  escape: "none" | "esc" | "csi"
}

type Key =
  | { readonly _tag: "Edit" }
  | { readonly _tag: "Enter" }
  | { readonly _tag: "End"; readonly error: AskAborted | AskCancelled }

/** Applies one typed character to the line. */
const typeChar = (typing: Typing, char: string): Key => {
  const edit: Key = { _tag: "Edit" }
  if (typing.escape === "esc") {
    typing.escape = char === "[" || char === "O" ? "csi" : "none"
    return edit
  }
  if (typing.escape === "csi") {
    // Parameters and intermediates run to a final byte in @..~.
    if (char >= "@" && char <= "~") typing.escape = "none"
    return edit
  }
  switch (char) {
    case "\r":
    case "\n":
      return { _tag: "Enter" }
    case "\x03":
      return { _tag: "End", error: new AskAborted({ message: "The human pressed Ctrl+C." }) }
    case "\x04":
      return typing.chars.length === 0
        ? {
          _tag: "End",
          error: new AskCancelled({ message: "The human pressed Ctrl+D (end of input) and cancelled the request." })
        }
        : edit
    case "\x1b":
      typing.escape = "esc"
      return edit
    case "\x7f":
    case "\b":
      typing.chars.pop()
      return edit
    case "\x15":
      typing.chars = []
      return edit
    case "\x17": {
      // The word before the end and the white space after it, as a shell's Ctrl+W.
      while (typing.chars.length > 0 && /\s/.test(typing.chars.at(-1)!)) typing.chars.pop()
      while (typing.chars.length > 0 && !/\s/.test(typing.chars.at(-1)!)) typing.chars.pop()
      return edit
    }
  }
  // Other control keys type nothing.
  if (!/[\x00-\x1f\x7f-\x9f]/.test(char)) typing.chars.push(char)
  return edit
}

/**
 * Reads one line from `input` (a TTY) with echo off. `prompt` runs once echo
 * is off and before any key is read: what asks for the line is written then,
 * so that nothing typed in answer to it can be echoed. What was typed after
 * the Enter is given back to the stream, for whoever reads it next.
 */
export const readHiddenLine = (input: tty.ReadStream, prompt: () => void): Effect.Effect<string, HiddenLineEnd> =>
  Effect.callback<string, HiddenLineEnd>((resume) => {
    const decoder = new StringDecoder("utf8")
    const typing: Typing = { chars: [], escape: "none" }
    let attached = true
    const detach = () => {
      if (!attached) return
      attached = false
      input.off("data", onData)
      input.off("end", onEnd)
      input.pause()
      try {
        input.setRawMode(false)
      } catch {
        // The terminal hung up: there is no mode left to restore.
      }
    }
    const onData = (chunk: Buffer | string) => {
      const chars = Array.from(typeof chunk === "string" ? chunk : decoder.write(chunk))
      for (const [i, char] of chars.entries()) {
        const key = typeChar(typing, char)
        if (key._tag === "Edit") continue
        detach()
        if (key._tag === "End") return resume(Effect.fail(key.error))
        // CR LF is one Enter.
        const rest = chars.slice(char === "\r" && chars[i + 1] === "\n" ? i + 2 : i + 1).join("")
        if (rest !== "") input.unshift(Buffer.from(rest, "utf8"))
        return resume(Effect.succeed(typing.chars.join("")))
      }
    }
    const onEnd = () => {
      detach()
      resume(Effect.fail(Cause.Done()))
    }
    if (input.readableEnded || input.destroyed) return onEnd()
    input.setRawMode(true)
    prompt()
    input.on("data", onData)
    input.once("end", onEnd)
    input.resume()
    return Effect.sync(detach)
  })
