/** Requests and answers that many tests share. */
import type { AskUserQuestionAnswer, AskUserQuestionRequest } from "effect-user-interaction"

export const batch: AskUserQuestionRequest = {
  questions: [
    {
      id: "db",
      question: "Which database?",
      header: "Storage",
      options: [{ label: "Postgres (Recommended)", description: "Relational" }, { label: "SQLite" }]
    },
    { id: "features", question: "Which features?", options: [{ label: "auth" }, { label: "billing" }, { label: "search" }], multiSelect: true },
    { id: "name", question: "Project name?" }
  ]
}

export const batchAnswer: AskUserQuestionAnswer = {
  answers: [
    { id: "db", selected: ["Postgres (Recommended)"] },
    { id: "features", selected: ["auth", "search"] },
    { id: "name", selected: [], custom: "atlas" }
  ]
}

export const single: AskUserQuestionRequest = {
  questions: [{ id: "go", question: "Deploy now?", options: [{ label: "yes" }, { label: "no" }] }]
}

export const singleAnswer: AskUserQuestionAnswer = { answers: [{ id: "go", selected: ["yes"] }] }
