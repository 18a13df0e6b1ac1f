/** maxImages: the newest images of a request are sent; each older image becomes a note that it was left out. */
import { TextPart, type ContentPart, type Message } from "../../ports/messages.js";

/** The note an image becomes; {name} becomes the image's name, or "an image" when it has none. */
export const IMAGE_NOTE = "[{name} left out to save space]";

/** The messages with at most `max` images, the newest kept; null keeps them all. The messages do not change. */
export function limitImages(messages: readonly Message[], max: number | null): Message[] {
  if (max === null) return [...messages];
  let kept = 0;
  const result = [...messages];
  for (let index = result.length - 1; index >= 0; index -= 1) {
    const message = result[index]!;
    if (message.role !== "user" || typeof message.content === "string") continue;
    const parts = [...message.content];
    let changed = false;
    for (let at = parts.length - 1; at >= 0; at -= 1) {
      const part = parts[at]!;
      if (part.kind !== "image") continue;
      if (kept < max) {
        kept += 1;
        continue;
      }
      parts[at] = note(part);
      changed = true;
    }
    if (changed) result[index] = { ...message, content: parts };
  }
  return result;
}

function note(part: ContentPart & { kind: "image" }): TextPart {
  return TextPart(IMAGE_NOTE.replaceAll("{name}", part.name === null ? "an image" : `the image "${part.name}"`));
}
