/**
 * `effect-user-interaction/slack`: the Slack surface. `SlackProvider` asks
 * in a channel (buttons, checkboxes, modals) over Socket Mode.
 *
 * @since 0.3.0
 */
export { type SlackClaims, SlackProvider, type SlackProviderOptions } from "./SlackProvider.js"
