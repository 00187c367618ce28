// "Copy" buttons (the API tokens page: a new token and its curl line). A button names the element whose text it copies
// (data-copy="<id>"); its paragraph is hidden in the page and shown here, so without scripts there is no dead button.
// The clipboard API needs a secure context (https, or this machine); elsewhere the text is selected and copied the
// old way, and if even that is refused it stays selected for the person to copy.
const SHOWN_MS = 4000;

function selectText(element) {
  const range = document.createRange();
  range.selectNodeContents(element);
  const selection = window.getSelection();
  selection.removeAllRanges();
  selection.addRange(range);
}

async function copy(element) {
  const text = element.textContent.trim();
  if (navigator.clipboard && window.isSecureContext) {
    try {
      await navigator.clipboard.writeText(text);
      return true;
    } catch {
      // refused (no permission): fall through to the old way
    }
  }
  selectText(element);
  try {
    return document.execCommand("copy");
  } catch {
    return false;
  }
}

for (const button of document.querySelectorAll("button[data-copy]")) {
  const source = document.getElementById(button.dataset.copy);
  if (!source) continue;
  const status = document.getElementById(button.dataset.copyStatus);
  button.parentElement.hidden = false;
  button.addEventListener("click", async () => {
    const copied = await copy(source);
    if (!status) return;
    status.textContent = copied ? "Copied." : "Selected: copy it with your keyboard.";
    window.setTimeout(() => { status.textContent = ""; }, SHOWN_MS);
  });
}
