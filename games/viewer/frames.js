// The viewer's data: a match's frames document, fetched (an error carries the server's message and status) and
// rebuilt from its patches into whole views, one per step; for a finished replay also every step's view with every
// hand (games/frames.py: all_hands).

/** Rebuild whole views from a frames document (step 0 is whole; later steps carry the changed top-level keys). */
export function expandViews(doc) {
  const views = [];
  let current = {};
  for (const frame of doc.frames) {
    if (frame.view) current = { ...frame.view };
    else {
      current = { ...current };
      for (const key of frame.drop || []) delete current[key];
      Object.assign(current, frame.patch);
    }
    views.push(current);
  }
  return views;
}

/** Fetch a frames document; its `views` (and `allViews`, `hidesNothing` when it has all_hands) are filled in. */
export async function fetchFrames(url) {
  const response = await fetch(url, { headers: { Accept: "application/json" }, credentials: "same-origin" });
  let body = null;
  try {
    body = await response.json();
  } catch {
    body = null;
  }
  if (!response.ok) {
    const message = body?.error?.message || `the server answered ${response.status}`;
    const error = new Error(message);
    error.status = response.status;
    throw error;
  }
  body.views = expandViews(body);
  if (body.all_hands) {
    // games/frames.py: what full_view() adds to each step's spectator view (every hand), for a finished replay.
    const extras = expandViews({ frames: body.all_hands });
    body.allViews = body.views.map((view, step) => ({ ...view, ...extras[step] }));
    body.hidesNothing = extras.every((extra) => Object.keys(extra).length === 0);
  }
  return body;
}
