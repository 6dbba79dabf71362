/**
 * `effect-user-interaction/terminal`: the terminal surface. `TerminalProvider`
 * asks with menus on a TTY (`/dev/tty`) or numbered lines on stderr.
 *
 * @since 0.2.0
 */
export * as TerminalProvider from "./TerminalProvider.js"
