//! The JSON report, and its schema.

use super::{Report, SCHEMA};

/// JSON, pretty-printed, one trailing newline.
pub fn json(r: &Report) -> String {
    let mut s = serde_json::to_string_pretty(r).unwrap_or_else(|e| {
        // Serializing plain data cannot fail; say so if it ever does.
        format!("{{\"schema\":\"{SCHEMA}\",\"error\":\"serializing the report: {e}\"}}")
    });
    s.push('\n');
    s
}

/// The JSON schema of [`Report`].
pub fn json_schema() -> String {
    let schema = schemars::schema_for!(Report);
    serde_json::to_string_pretty(&schema).unwrap_or_default() + "\n"
}

#[cfg(test)]
mod tests {
    use super::super::tests::report;
    use super::super::VERSION;
    use super::*;

    #[test]
    fn json_carries_schema_version_and_totals() {
        let v: serde_json::Value = serde_json::from_str(&json(&report())).expect("JSON");
        assert_eq!(v["schema"], SCHEMA);
        assert_eq!(v["version"], VERSION);
        assert_eq!(v["totals"]["tests"], 4);
        assert_eq!(v["totals"]["errors"], 2);
        assert_eq!(v["suites"][0]["cases"][2]["status"], "hang");
        assert_eq!(v["suites"][0]["cases"][0]["function"], "hfi1_setup_wqe");
    }

    #[test]
    fn skips_and_partial_judgements_are_fields_only_when_there_are_some() {
        let v: serde_json::Value =
            serde_json::from_str(&json(&super::super::tests::gate_report())).expect("JSON");
        let (skipped, part) = (&v["suites"][0], &v["suites"][1]);
        assert_eq!(skipped["skipped"], "no changed line runs in a world");
        assert_eq!(skipped["verdict"], "not-judged");
        assert_eq!(
            (&skipped["judged_functions"], &skipped["changed_functions"]),
            (&serde_json::json!(0), &serde_json::json!(1))
        );
        assert_eq!(part.get("skipped"), None);
        assert_eq!(part["judged_functions"], 1);
        assert_eq!(part["changed_functions"], 2);
        assert_eq!(
            part["not_judged_functions"][0],
            "sdma.c: sdma_make_progress"
        );
        // A report without them has none of the keys.
        let plain = json(&report());
        for key in [
            "skipped",
            "judged_functions",
            "changed_functions",
            "not_judged_functions",
        ] {
            assert!(!plain.contains(&format!("\"{key}\"")), "{key}");
        }
    }

    /// harness/report.schema.json is what these types say (`cargo xtask
    /// schema` writes it).
    #[test]
    fn committed_schema_is_fresh() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("report.schema.json");
        let committed = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            committed == json_schema(),
            "{} is stale: run `cargo xtask codegen`",
            path.display()
        );
    }
}
