/**
 * The twelve locales of specification 2.1. Their Typst language data and labels live in
 * typst-templates/lib/locales.json, which the templates read too, so both sides agree.
 */
import locales from "../../typst-templates/lib/locales.json" with { type: "json" }

export const LOCALES = ["en", "es", "fr", "de", "ja", "zh-CN", "ko", "pt-BR", "ar", "ru", "hi", "it"] as const
export type Locale = (typeof LOCALES)[number]

export interface LocaleData {
  readonly lang: string
  readonly region: string | null
  readonly dir: "ltr" | "rtl"
  readonly labels: Readonly<Record<string, string>>
}

export const localeData = locales as Readonly<Record<Locale, LocaleData>>

export const isLocale = (value: string): value is Locale => (LOCALES as ReadonlyArray<string>).includes(value)
