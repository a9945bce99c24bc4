import Foundation

/// Slack's incoming-webhook payload as plain text: `text`, then the readable parts of
/// `attachments` and `blocks`, with Slack's `<url|label>` links and `&amp;` escapes
/// written out.
enum SlackText {
    static func text(_ object: [String: Any]) -> String {
        var lines: [String] = []
        if let text = HookPayload.string(object["text"]) { lines.append(text) }
        for attachment in (object["attachments"] as? [Any] ?? []).prefix(20) {
            guard let attachment = attachment as? [String: Any] else { continue }
            var parts: [String] = []
            for key in ["pretext", "author_name", "title", "text"] {
                if let value = HookPayload.string(attachment[key]), !value.isEmpty { parts.append(value) }
            }
            for field in (attachment["fields"] as? [Any] ?? []).prefix(20) {
                guard let field = field as? [String: Any] else { continue }
                let title = HookPayload.string(field["title"]) ?? ""
                let value = HookPayload.string(field["value"]) ?? ""
                if !title.isEmpty || !value.isEmpty { parts.append(title.isEmpty ? value : "\(title): \(value)") }
            }
            if parts.isEmpty, let fallback = HookPayload.string(attachment["fallback"]) { parts.append(fallback) }
            lines += parts
        }
        for block in (object["blocks"] as? [Any] ?? []).prefix(50) {
            guard let block = block as? [String: Any] else { continue }
            if let text = blockText(block["text"]) { lines.append(text) }
            for element in (block["fields"] as? [Any] ?? []).prefix(20) + (block["elements"] as? [Any] ?? []).prefix(20) {
                if let text = blockText(element) { lines.append(text) }
            }
        }
        return lines.map(unescape).joined(separator: "\n")
    }

    /// A block's text object (`{"type": "mrkdwn", "text": …}`) or a plain string.
    private static func blockText(_ value: Any?) -> String? {
        if let text = value as? String { return text }
        guard let object = value as? [String: Any] else { return nil }
        return HookPayload.string(object["text"])
    }

    /// `<https://x|label>` → `label (https://x)`, `<https://x>` → `https://x`,
    /// `<!here>`/`<!channel>` → `@here`, `<@U1>` → `@U1`; then `&lt; &gt; &amp;`.
    static func unescape(_ text: String) -> String {
        var out = ""
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "<"), let close = rest[open...].firstIndex(of: ">") {
            out += rest[..<open]
            let inner = rest[rest.index(after: open)..<close]
            let parts = inner.split(separator: "|", maxSplits: 1, omittingEmptySubsequences: false)
            if inner.hasPrefix("!") {
                out +=
                    inner.hasPrefix("!here") || inner.hasPrefix("!channel") || inner.hasPrefix("!everyone")
                    ? "@here" : "@" + inner.dropFirst()
            } else if inner.hasPrefix("@") || inner.hasPrefix("#") {
                out += parts.count == 2 ? String(parts[1]) : String(parts[0])
            } else if parts.count == 2 {
                out += "\(parts[1]) (\(parts[0]))"
            } else {
                out += inner
            }
            rest = rest[rest.index(after: close)...]
        }
        out += rest
        return out.replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&amp;", with: "&")
    }
}

/// Prometheus Alertmanager's webhook payload (version 4) as a message: a head line with
/// the status and how many alerts, then a line an alert, at most 20.
enum AlertSummary {
    static func text(_ object: [String: Any]) -> String {
        let alerts = (object["alerts"] as? [Any] ?? []).compactMap { $0 as? [String: Any] }
        let status = HookPayload.string(object["status"]) ?? "firing"
        let firing = alerts.filter { HookPayload.string($0["status"]) != "resolved" }.count
        let resolved = alerts.count - firing
        let common = object["commonLabels"] as? [String: Any] ?? [:]
        let group = object["groupLabels"] as? [String: Any] ?? [:]
        let title = HookPayload.string(common["alertname"]) ?? HookPayload.string(group["alertname"]) ?? labels(group, except: [])
        var head = status == "resolved" ? "[RESOLVED] " : "[FIRING:\(firing)] "
        head += title.isEmpty ? "\(alerts.count) alert\(alerts.count == 1 ? "" : "s")" : title
        if status != "resolved", resolved > 0 { head += " (\(resolved) resolved)" }
        var lines = [Sanitized.line(head, max: 200)]
        for alert in alerts.prefix(20) {
            let labels = alert["labels"] as? [String: Any] ?? [:]
            let annotations = alert["annotations"] as? [String: Any] ?? [:]
            var line = "• " + (HookPayload.string(labels["alertname"]) ?? "alert")
            if HookPayload.string(alert["status"]) == "resolved", status != "resolved" { line += " (resolved)" }
            let rest = Self.labels(labels, except: ["alertname"])
            if !rest.isEmpty { line += " [\(rest)]" }
            if let summary = HookPayload.string(annotations["summary"]) ?? HookPayload.string(annotations["description"]) {
                line += ": " + summary
            }
            lines.append(Sanitized.line(line, max: 300))
        }
        if alerts.count > 20 { lines.append("… and \(alerts.count - 20) more") }
        if let url = HookPayload.string(object["externalURL"]), url.hasPrefix("http") { lines.append(Sanitized.line(url, max: 200)) }
        return lines.joined(separator: "\n")
    }

    /// `instance=a, severity=page`: at most five labels, sorted by name.
    private static func labels(_ labels: [String: Any], except: Set<String>) -> String {
        labels.keys.filter { !except.contains($0) }.sorted().prefix(5).compactMap { key in
            HookPayload.string(labels[key]).map { "\(key)=\($0)" }
        }.joined(separator: ", ")
    }
}

/// A GitHub delivery in one line, by its `X-GitHub-Event`.
enum GitHubSummary {
    /// The pull request or issue a delivery is about (a comment on one, a review of one):
    /// its deliveries go into one thread, titled `owner/repo#42 the title`.
    static func item(event: String, _ object: [String: Any]) -> HookItem? {
        let item: [String: Any]?
        switch event {
        case "pull_request", "pull_request_review", "pull_request_review_comment", "pull_request_review_thread":
            item = object["pull_request"] as? [String: Any]
        case "issues", "issue_comment": item = object["issue"] as? [String: Any]
        default: return nil
        }
        guard let repository = (object["repository"] as? [String: Any]).flatMap({ HookPayload.string($0["full_name"]) }),
            let number = HookPayload.string(item?["number"]) ?? HookPayload.string(object["number"]), Int(number) != nil
        else { return nil }
        let key = Sanitized.line("\(repository)#\(number)", max: 200)
        let title = HookPayload.string(item?["title"]).map { " " + $0 } ?? ""
        return HookItem(key: key, title: Sanitized.line(key + title, max: Limits.maxGroupTitleLength))
    }

    static func line(event: String, _ object: [String: Any]) -> String {
        let repository = (object["repository"] as? [String: Any]).flatMap { HookPayload.string($0["full_name"]) } ?? "a repository"
        let sender = (object["sender"] as? [String: Any]).flatMap { HookPayload.string($0["login"]) } ?? "someone"
        let action = HookPayload.string(object["action"]) ?? ""
        func link(_ object: [String: Any]?) -> String {
            HookPayload.string(object?["html_url"]).map { " <\($0)>" } ?? ""
        }
        let line: String
        switch event {
        case "ping":
            line = "GitHub hook for \(repository) is set up" + (HookPayload.string(object["zen"]).map { ": \($0)" } ?? "")
        case "push":
            let ref = HookPayload.string(object["ref"]) ?? ""
            let branch =
                ref.hasPrefix("refs/heads/") ? String(ref.dropFirst(11)) : ref.hasPrefix("refs/tags/") ? "tag " + ref.dropFirst(10) : ref
            let pusher = (object["pusher"] as? [String: Any]).flatMap { HookPayload.string($0["name"]) } ?? sender
            if object["deleted"] as? Bool == true {
                line = "\(pusher) deleted \(branch) in \(repository)"
            } else {
                let commits = (object["commits"] as? [Any])?.count ?? 0
                let head = (object["head_commit"] as? [String: Any]).flatMap { HookPayload.string($0["message"]) }
                let first = head?.split(separator: "\n").first.map(String.init)
                line =
                    "\(pusher) pushed \(commits) commit\(commits == 1 ? "" : "s") to \(repository):\(branch)"
                    + (first.map { ": \($0)" } ?? "") + (HookPayload.string(object["compare"]).map { " <\($0)>" } ?? "")
            }
        case "pull_request":
            let pull = object["pull_request"] as? [String: Any]
            let merged = action == "closed" && pull?["merged"] as? Bool == true
            let number = HookPayload.string(object["number"]) ?? HookPayload.string(pull?["number"]) ?? "?"
            line =
                "\(sender) \(merged ? "merged" : action) pull request #\(number) in \(repository): "
                + (HookPayload.string(pull?["title"]) ?? "") + link(pull)
        case "issues":
            let issue = object["issue"] as? [String: Any]
            line =
                "\(sender) \(action) issue #\(HookPayload.string(issue?["number"]) ?? "?") in \(repository): "
                + (HookPayload.string(issue?["title"]) ?? "") + link(issue)
        case "issue_comment":
            let issue = object["issue"] as? [String: Any]
            let comment = object["comment"] as? [String: Any]
            let first = HookPayload.string(comment?["body"])?.split(separator: "\n").first.map(String.init) ?? ""
            line = "\(sender) commented on #\(HookPayload.string(issue?["number"]) ?? "?") in \(repository): \(first)" + link(comment)
        case "workflow_run":
            let run = object["workflow_run"] as? [String: Any]
            let name = HookPayload.string(run?["name"]) ?? "a workflow"
            let outcome = HookPayload.string(run?["conclusion"]) ?? HookPayload.string(run?["status"]) ?? action
            let branch = HookPayload.string(run?["head_branch"]).map { " on \($0)" } ?? ""
            line = "\(name) \(outcome)\(branch) in \(repository)" + link(run)
        case "release":
            let release = object["release"] as? [String: Any]
            let tag = HookPayload.string(release?["name"]) ?? HookPayload.string(release?["tag_name"]) ?? ""
            line = "\(sender) \(action) release \(tag) in \(repository)" + link(release)
        default:
            line = "GitHub \(Sanitized.line(event, max: 40))\(action.isEmpty ? "" : " (\(action))") in \(repository) by \(sender)"
        }
        return Sanitized.line(line, max: 600)
    }
}
