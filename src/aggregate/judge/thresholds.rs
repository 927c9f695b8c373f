//! Thresholds and weights: the reference judge's defaults, overridden key by key by
//! `[judge]` of checks.toml, then by an aggregator input's
//! `tech_stack.quality_thresholds` and `tech_stack.weights` (the reference judge's
//! `get_config`). The weight-sum rule applies to the merged weights.

use std::path::Path;

use crate::config::{JudgeConfig, Weights};
use crate::error::Error;
use crate::json_input::from_problem;
use run_check_documents::read::Problem;

pub(crate) use run_check_documents::verdict::{TechStack, Thresholds};

/// `[judge]` (itself over the defaults) ← the input's `tech_stack`, key by
/// key. `file` names the input in errors.
pub(crate) fn resolve(
    config: &JudgeConfig,
    input: &TechStack,
    file: &Path,
) -> Result<(Thresholds, Weights), Error> {
    // The layers' paths are within `tech_stack`'s member.
    let error = |at: &str, mut problem: Problem| {
        let within = problem
            .path
            .as_deref()
            .unwrap_or("$")
            .trim_start_matches('$');
        problem.path = Some(format!("$.tech_stack.{at}{within}"));
        from_problem(file, problem)
    };
    let t = config
        .thresholds
        .with(&input.quality_thresholds)
        .map_err(|p| error("quality_thresholds", p))?;
    let w = config
        .weights
        .with(&input.weights)
        .map_err(|p| error("weights", p))?;
    if let Some(sum) = w.wrong_sum() {
        let message = format!(
            "the merged weights (security {}, quality {}, performance {}) sum to {sum}, \
             not 1.0 (±0.001)",
            w.security, w.quality, w.performance,
        );
        return Err(from_problem(
            file,
            Problem::at("$.tech_stack.weights", message),
        ));
    }
    Ok((t, w))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    fn file() -> &'static Path {
        Path::new("in.json")
    }

    fn overrides(thresholds: Value, weights: Value) -> TechStack {
        TechStack {
            quality_thresholds: thresholds.as_object().unwrap().clone(),
            weights: weights.as_object().unwrap().clone(),
        }
    }

    #[test]
    fn defaults_are_the_reference_judges() {
        let (t, w) = resolve(&JudgeConfig::default(), &TechStack::default(), file()).unwrap();
        assert_eq!(t, Thresholds::default());
        assert_eq!(
            (t.security_min, t.quality_min, t.performance_min),
            (85.0, 80.0, 80.0)
        );
        assert_eq!(
            (t.overall_min, t.max_critical_issues, t.max_high_issues),
            (80.0, 0, 2)
        );
        assert_eq!(
            (t.max_iterations, t.stall_threshold, t.stall_rounds),
            (5, 5.0, 2)
        );
        assert_eq!((w.security, w.quality, w.performance), (0.4, 0.35, 0.25));
    }

    #[test]
    fn the_input_overrides_judge_which_overrides_the_defaults_key_by_key() {
        let config = JudgeConfig {
            thresholds: Thresholds {
                security_min: 90.0,
                quality_min: 70.0,
                max_iterations: 8,
                ..Thresholds::default()
            },
            weights: Weights {
                security: 0.5,
                quality: 0.3,
                performance: 0.2,
            },
        };
        let input = overrides(
            json!({"quality_min": 75, "stall_rounds": 3.0}),
            json!({"security": 0.4, "quality": 0.4}),
        );
        let (t, w) = resolve(&config, &input, file()).unwrap();
        assert_eq!(t.security_min, 90.0, "[judge]");
        assert_eq!(t.quality_min, 75.0, "input over [judge]");
        assert_eq!(t.performance_min, 80.0, "default");
        assert_eq!((t.max_iterations, t.stall_rounds), (8, 3));
        // 0.4 + 0.4 (input) + 0.2 ([judge]) = 1.0
        assert_eq!(
            w,
            Weights {
                security: 0.4,
                quality: 0.4,
                performance: 0.2
            }
        );
    }

    #[test]
    fn input_problems_name_their_json_path() {
        let err = |thresholds: Value, weights: Value| {
            resolve(
                &JudgeConfig::default(),
                &overrides(thresholds, weights),
                file(),
            )
            .unwrap_err()
            .to_string()
        };
        assert_eq!(
            err(json!({"security_min": "85"}), json!({})),
            "in.json: $.tech_stack.quality_thresholds.security_min: expected a number, found string"
        );
        assert_eq!(
            err(json!({"overall_min": 101}), json!({})),
            "in.json: $.tech_stack.quality_thresholds.overall_min: 101 is outside 0..100"
        );
        assert_eq!(
            err(json!({"secutiry_min": 85}), json!({})),
            "in.json: $.tech_stack.quality_thresholds.secutiry_min: unknown field (expected \
             security_min, quality_min, performance_min, overall_min, max_critical_issues, \
             max_high_issues, max_iterations, stall_threshold or stall_rounds)"
        );
        assert_eq!(
            err(json!({"max_iterations": 0}), json!({})),
            "in.json: $.tech_stack.quality_thresholds.max_iterations: must be at least 1"
        );
        assert_eq!(
            err(json!({"max_high_issues": 1.5}), json!({})),
            "in.json: $.tech_stack.quality_thresholds.max_high_issues: expected a non-negative \
             integer, found number 1.5"
        );
        assert_eq!(
            err(json!({}), json!({"security": 1.5})),
            "in.json: $.tech_stack.weights.security: expected a weight within 0..1, found 1.5"
        );
        assert_eq!(
            err(json!({}), json!({"speed": 0.1})),
            "in.json: $.tech_stack.weights.speed: unknown field (expected security, quality or \
             performance)"
        );
    }

    #[test]
    fn merged_weights_must_sum_to_one_within_the_tolerance() {
        // 0.5 + 0.35 + 0.25 = 1.1 once merged with the defaults.
        let input = overrides(json!({}), json!({"security": 0.5}));
        let err = resolve(&JudgeConfig::default(), &input, file()).unwrap_err();
        assert_eq!(
            err.to_string(),
            "in.json: $.tech_stack.weights: the merged weights (security 0.5, quality 0.35, \
             performance 0.25) sum to 1.1, not 1.0 (±0.001)"
        );
        assert_eq!(err.exit_code(), 2);
        // 0.4009 + 0.35 + 0.25 = 1.0009: inside ±0.001.
        let input = overrides(json!({}), json!({"security": 0.4009}));
        assert!(resolve(&JudgeConfig::default(), &input, file()).is_ok());
        // 0.4011 + 0.35 + 0.25 = 1.0011: outside.
        let input = overrides(json!({}), json!({"security": 0.4011}));
        assert!(resolve(&JudgeConfig::default(), &input, file()).is_err());
    }
}
