#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Drives headless Chromium through the DevTools protocol for the catalog export tests.

Python 3 standard library only. Chromium is started with --remote-debugging-pipe: it reads
commands on its fd 3 and writes replies and events on its fd 4, each message JSON ended by a NUL.

    cdp_driver.py probe           prints Chromium's version as JSON; exits 2 with the reason when
                                  Chromium is missing or does not start
    cdp_driver.py run PLAN.json   opens PLAN["url"], performs PLAN["steps"] in order and prints one
                                  JSON object: each step's result, console messages, exceptions,
                                  Content-Security-Policy violations and timings

Steps are objects with "op" (and an optional "id", copied into the step's result):
    eval        {"js": EXPR}                      the value of EXPR (awaited if a promise)
    waitFor     {"js": EXPR, "timeout": s}        polls EXPR every 25 ms until it is truthy
    click       {"selector": CSS} or {"js": EXPR} real mouse events at the element's centre
    type        {"selector": CSS, "text": T}      clicks the element, then inserts T as typed text
    key         {"key": "Enter"|"Escape"}         a key press to the focused element
    screenshot  {"path": P}                       a PNG of the viewport
    sleep       {"seconds": s}
The test (Swift) decides what the results mean; this script only reports what the page did.
"""
import base64
import json
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time

KEYS = {"Enter": 13, "Escape": 27, "Tab": 9}

# Installed before any of the page's own scripts: records CSP violations, so a blocked script or
# handler shows up in the report even though it never ran.
RECORDER = """
window.__cspViolations = [];
document.addEventListener('securitypolicyviolation', (event) => {
  window.__cspViolations.push({directive: event.violatedDirective, blocked: event.blockedURI, sample: event.sample});
});
"""


class Unavailable(Exception):
    """Chromium is missing or does not start."""


class ProtocolError(Exception):
    """A DevTools command failed."""


class Chromium:
    def __init__(self, width=1280, height=900):
        binary = shutil.which("chromium") or shutil.which("chromium-browser")
        if not binary:
            raise Unavailable("chromium is not installed (Tools/install-deps installs it: apt-get install chromium)")
        self.profile = tempfile.mkdtemp(prefix="catalog-export-chromium-")
        commands_read, self.commands = os.pipe()
        self.replies, replies_write = os.pipe()

        def child():
            # Copies first, so that neither pipe end is overwritten when it happens to be fd 3 or 4.
            read_copy, write_copy = os.dup(commands_read), os.dup(replies_write)
            os.dup2(read_copy, 3)
            os.dup2(write_copy, 4)
            os.set_inheritable(3, True)
            os.set_inheritable(4, True)

        self.log_path = os.path.join(self.profile, "chromium.log")
        with open(self.log_path, "wb") as log:
            self.process = subprocess.Popen(
                [binary, "--headless=new", "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe",
                 "--user-data-dir=" + self.profile, "--no-first-run", "--no-default-browser-check",
                 "--disable-extensions", "--disable-background-networking", "--disable-sync",
                 "--disable-component-update", "--mute-audio", "--hide-scrollbars",
                 f"--window-size={width},{height}", "about:blank"],
                stdin=subprocess.DEVNULL, stdout=log, stderr=log, close_fds=False, preexec_fn=child)
        os.close(commands_read)
        os.close(replies_write)
        self.buffer = b""
        self.next_id = 0
        self.events = []
        self.width, self.height = width, height

    def log_tail(self):
        try:
            with open(self.log_path, "rb") as log:
                return log.read()[-2000:].decode("utf-8", "replace")
        except OSError:
            return ""

    def send(self, method, params=None, session=None):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        data = json.dumps(message).encode() + b"\0"
        while data:
            data = data[os.write(self.commands, data):]
        return self.next_id

    def receive(self, deadline):
        while b"\0" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no message from Chromium in time")
            ready, _, _ = select.select([self.replies], [], [], left)
            if not ready:
                continue
            chunk = os.read(self.replies, 1 << 20)
            if not chunk:
                raise Unavailable("Chromium closed the DevTools pipe: " + self.log_tail())
            self.buffer += chunk
        message, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(message)

    def call(self, method, params=None, session=None, timeout=30):
        identifier = self.send(method, params, session)
        deadline = time.monotonic() + timeout
        while True:
            message = self.receive(deadline)
            if message.get("id") == identifier:
                if "error" in message:
                    raise ProtocolError(f"{method}: {message['error']}")
                return message.get("result", {})
            if "method" in message:
                self.events.append(message)

    def wait_event(self, method, session, timeout=30):
        deadline = time.monotonic() + timeout
        while True:
            for index, event in enumerate(self.events):
                if event.get("method") == method and event.get("sessionId") == session:
                    return self.events.pop(index)
            self.events.append(self.receive(deadline))

    def close(self):
        try:
            self.send("Browser.close")
            self.process.wait(timeout=10)
        except Exception:
            self.process.kill()
            self.process.wait()
        for fd in (self.commands, self.replies):
            try:
                os.close(fd)
            except OSError:
                pass
        shutil.rmtree(self.profile, ignore_errors=True)


class Page:
    def __init__(self, browser):
        self.browser = browser
        target = browser.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = browser.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page.enable", "Runtime.enable", "Log.enable"):
            self.call(domain)
        self.call("Emulation.setDeviceMetricsOverride",
                  {"width": browser.width, "height": browser.height, "deviceScaleFactor": 1, "mobile": False})
        self.call("Page.addScriptToEvaluateOnNewDocument", {"source": RECORDER})

    def call(self, method, params=None, timeout=60):
        return self.browser.call(method, params, self.session, timeout)

    def evaluate(self, expression, timeout=60):
        result = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True,
                                                "awaitPromise": True, "userGesture": True}, timeout)
        if "exceptionDetails" in result:
            details = result["exceptionDetails"]
            text = details.get("exception", {}).get("description") or details.get("text", "exception")
            raise ProtocolError(text)
        return result.get("result", {}).get("value")

    def navigate(self, url, timeout=120):
        began = time.monotonic()
        self.call("Page.navigate", {"url": url})
        self.browser.wait_event("Page.loadEventFired", self.session, timeout)
        return (time.monotonic() - began) * 1000

    def centre(self, step):
        if "selector" in step:
            finder = "document.querySelector(" + json.dumps(step["selector"]) + ")"
        else:
            finder = "(" + step["js"] + ")"
        box = self.evaluate("(() => { const e = " + finder + "; if (!e) return null; e.scrollIntoView({block: 'center'});"
                            " const r = e.getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2,"
                            " r.width, r.height]; })()")
        if not box or box[2] == 0 or box[3] == 0:
            raise ProtocolError("no visible element for " + json.dumps(step.get("selector") or step.get("js")))
        return box[0], box[1]

    def click(self, step):
        x, y = self.centre(step)
        self.call("Input.dispatchMouseEvent", {"type": "mouseMoved", "x": x, "y": y})
        for kind in ("mousePressed", "mouseReleased"):
            self.call("Input.dispatchMouseEvent", {"type": kind, "x": x, "y": y, "button": "left", "clickCount": 1})
        return [x, y]

    def key(self, name):
        code = KEYS.get(name, 0)
        for kind in ("keyDown", "keyUp"):
            self.call("Input.dispatchKeyEvent", {"type": kind, "key": name, "code": name,
                                                 "windowsVirtualKeyCode": code, "nativeVirtualKeyCode": code})

    def perform(self, step):
        op = step["op"]
        if op == "eval":
            return self.evaluate(step["js"])
        if op == "waitFor":
            began = time.monotonic()
            deadline = began + float(step.get("timeout", 10))
            while True:
                value = self.evaluate(step["js"])
                if value:
                    return {"value": value, "milliseconds": (time.monotonic() - began) * 1000}
                if time.monotonic() > deadline:
                    raise ProtocolError("timed out waiting for " + step["js"])
                time.sleep(0.025)
        if op == "click":
            return self.click(step)
        if op == "type":
            self.click(step)
            self.call("Input.insertText", {"text": step["text"]})
            return True
        if op == "key":
            self.key(step["key"])
            return True
        if op == "screenshot":
            data = self.call("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": False})["data"]
            with open(step["path"], "wb") as file:
                file.write(base64.b64decode(data))
            return step["path"]
        if op == "sleep":
            time.sleep(float(step["seconds"]))
            return True
        raise ProtocolError("unknown step " + op)


def messages(events):
    """Console calls, exceptions and log entries the page produced."""
    console, exceptions = [], []
    for event in events:
        method, params = event.get("method"), event.get("params", {})
        if method == "Runtime.consoleAPICalled":
            text = " ".join(str(arg.get("value", arg.get("description", ""))) for arg in params.get("args", []))
            console.append({"level": params.get("type"), "text": text})
        elif method == "Log.entryAdded":
            entry = params.get("entry", {})
            console.append({"level": entry.get("level"), "text": entry.get("text"), "source": entry.get("source")})
        elif method == "Runtime.exceptionThrown":
            details = params.get("exceptionDetails", {})
            exceptions.append(details.get("exception", {}).get("description") or details.get("text"))
    return console, exceptions


def run(plan):
    browser = Chromium(plan.get("width", 1280), plan.get("height", 900))
    try:
        page = Page(browser)
        load = page.navigate(plan["url"])
        results = []
        for step in plan["steps"]:
            try:
                results.append({"id": step.get("id"), "ok": True, "value": page.perform(step)})
            except (ProtocolError, TimeoutError) as error:
                results.append({"id": step.get("id"), "ok": False, "error": str(error)})
        violations = page.evaluate("window.__cspViolations || []")
        console, exceptions = messages(browser.events)
        return {"loadMilliseconds": load, "results": results, "console": console, "exceptions": exceptions,
                "cspViolations": violations}
    finally:
        browser.close()


def main():
    if len(sys.argv) >= 2 and sys.argv[1] == "probe":
        try:
            browser = Chromium()
            try:
                version = browser.call("Browser.getVersion", timeout=30)
            finally:
                browser.close()
        except (Unavailable, TimeoutError, ProtocolError, OSError) as error:
            print(f"chromium does not start: {error}", file=sys.stderr)
            return 2
        print(json.dumps(version))
        return 0
    if len(sys.argv) == 3 and sys.argv[1] == "run":
        with open(sys.argv[2], encoding="utf-8") as file:
            plan = json.load(file)

        def expire(signum, frame):
            raise TimeoutError(f"the browser session took more than {plan.get('timeout', 300)} s")

        signal.signal(signal.SIGALRM, expire)
        signal.alarm(int(plan.get("timeout", 300)))
        try:
            print(json.dumps(run(plan)))
        except (Unavailable, TimeoutError, ProtocolError, OSError) as error:
            print(f"browser session failed: {error}", file=sys.stderr)
            return 1
        return 0
    print(__doc__, file=sys.stderr)
    return 64


if __name__ == "__main__":
    sys.exit(main())
