(() => {
  if (window.__mipGameKeys) return;
  window.__mipGameKeys = true;
  const ARM_MS = 400, AGAIN_MS = 1200;
  const PLAY = '[class*="st-key-play_in_"], [class*="st-key-play_out_"]';
  const seen = new Map(), tapped = new Map();
  const roundOf = (el) => {
    const box = el && el.closest && el.closest(PLAY);
    if (!box) return null;
    const cls = [...box.classList].find((c) => /^st-key-play_(in|out)_/.test(c));
    return cls ? cls.replace(/^st-key-play_(in|out)_/, "") : null;
  };
  const look = () => {
    const now = performance.now();
    document.querySelectorAll(PLAY).forEach((box) => {
      const r = roundOf(box);
      if (r && !seen.has(r)) seen.set(r, now);
    });
  };
  new MutationObserver(look).observe(document.body, {childList: true, subtree: true});
  look();
  const say = (text) => {
    let el = document.getElementById("mip-tap-note");
    if (!el) {
      el = document.createElement("div");
      el.id = "mip-tap-note";
      el.setAttribute("role", "status");
      el.setAttribute("aria-live", "polite");
      Object.assign(el.style, {position: "fixed", left: "50%", top: "0.8rem",
        transform: "translateX(-50%)", zIndex: "1000100", background: "#1a1a1a",
        color: "#ffffff", padding: "0.6rem 1rem", borderRadius: "0.5rem", maxWidth: "90vw",
        font: "600 1rem/1.35 'Source Sans Pro', sans-serif", textAlign: "center",
        boxShadow: "0 2px 10px rgba(0,0,0,0.35)"});
      document.body.appendChild(el);
    }
    el.textContent = text;
    el.style.display = "block";
    clearTimeout(el.hideTimer);
    el.hideTimer = setTimeout(() => { el.style.display = "none"; }, 3500);
  };
  window.addEventListener("click", (e) => {
    const button = e.target && e.target.closest ? e.target.closest("button") : null;
    const r = button ? roundOf(button) : null;
    if (!r) return;
    const now = performance.now();
    const last = tapped.get(r);
    let why = null;
    if (last !== undefined && now - last < AGAIN_MS) {
      why = "One tap, one answer: that second tap was not counted.";
    } else if (now - (seen.has(r) ? seen.get(r) : now) < ARM_MS) {
      why = "Too quick: that tap came as the round appeared, so it was not counted.";
    }
    if (why) {
      e.preventDefault();
      e.stopImmediatePropagation();
      say(why);
      return;
    }
    tapped.set(r, now);
  }, true);
  const typing = (el) => !!el && (el.tagName === "TEXTAREA" || el.isContentEditable ||
    (el.tagName === "INPUT" &&
     !["checkbox", "radio", "range", "button", "submit"].includes((el.type || "").toLowerCase())));
  window.addEventListener("keydown", (e) => {
    if (e.key !== "ArrowLeft" && e.key !== "ArrowRight") return;
    if (e.ctrlKey || e.metaKey || e.altKey || e.shiftKey) return;
    const side = e.key === "ArrowLeft" ? "in" : "out";
    const button = [...document.querySelectorAll(`[class*="st-key-play_${side}_"] button`)]
      .find((b) => b.getBoundingClientRect().width > 0);  // Streamlit keeps a hidden copy
    if (!button) return;
    const el = document.activeElement;
    const inSidebar = !!(el && el.closest && el.closest('[data-testid="stSidebar"]'));
    if (!inSidebar && typing(el)) return;
    e.preventDefault();
    e.stopImmediatePropagation();
    if (inSidebar) el.blur();
    if (!e.repeat && !button.disabled) button.click();
  }, true);
})();
