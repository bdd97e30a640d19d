/**
 * User text reaches Typst only as string literals built here. Inside a Typst string literal the
 * only special characters are the backslash, the double quote and control characters, so once
 * those are escaped no markup, code, label or reference syntax can take effect.
 */
const ESCAPES: Readonly<Record<string, string>> = { "\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t" }

export const typstString = (text: string): string =>
  '"' +
  text.replace(/[\\"\u0000-\u001f\u007f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, (c) => {
    const escaped = ESCAPES[c]
    if (escaped !== undefined) return escaped
    const code = c.charCodeAt(0)
    // A lone surrogate has no UTF-8 encoding: it becomes the replacement character.
    return code >= 0xd800 && code <= 0xdfff ? "\uFFFD" : `\\u{${code.toString(16)}}`
  }) +
  '"'
