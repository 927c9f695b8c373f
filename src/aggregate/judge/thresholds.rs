//! Thresholds and weights: the reference judge's defaults, overridden key by key by
//! `[judge]` of checks.toml, then by an aggregator input's
//! `tech_stack.quality_thresholds` and `tech_stack.weights` (the reference judge's
//! `get_config`). The weight-sum rule applies to the merged weights.

use std::path::Path;

use crate::config::{JudgeConfig, Weights};
use crate::error::Error;

/// Largest distance of the weights' sum from 1.0 that is still accepted.
pub(crate) const WEIGHT_SUM_TOLERANCE: f64 = 0.001;

pub(crate) use run_check_documents::verdict::Thresholds;

/// The reference judge's `DEFAULT_WEIGHTS`.
pub(crate) const DEFAULT_WEIGHTS: Weights = Weights {
    security: 0.4,
    quality: 0.35,
    performance: 0.25,
};

/// Keys a layer may override; `None` keeps the value below it.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Overrides {
    pub(crate) security_min: Option<f64>,
    pub(crate) quality_min: Option<f64>,
    pub(crate) performance_min: Option<f64>,
    pub(crate) overall_min: Option<f64>,
    pub(crate) max_critical_issues: Option<u32>,
    pub(crate) max_high_issues: Option<u32>,
    pub(crate) max_iterations: Option<u32>,
    pub(crate) stall_threshold: Option<f64>,
    pub(crate) stall_rounds: Option<u32>,
    pub(crate) weight_security: Option<f64>,
    pub(crate) weight_quality: Option<f64>,
    pub(crate) weight_performance: Option<f64>,
}

impl From<&JudgeConfig> for Overrides {
    fn from(config: &JudgeConfig) -> Overrides {
        Overrides {
            security_min: config.security_min,
            quality_min: config.quality_min,
            performance_min: config.performance_min,
            overall_min: config.overall_min,
            max_critical_issues: config.max_critical_issues,
            max_high_issues: config.max_high_issues,
            max_iterations: config.max_iterations,
            stall_threshold: config.stall_threshold,
            stall_rounds: config.stall_rounds,
            weight_security: config.weights.map(|w| w.security),
            weight_quality: config.weights.map(|w| w.quality),
            weight_performance: config.weights.map(|w| w.performance),
        }
    }
}

/// Defaults ← `[judge]` ← the input's `tech_stack`, key by key. `input` names
/// the input file in the error when the merged weights do not sum to 1.
pub(crate) fn resolve(
    config: &JudgeConfig,
    input: &Overrides,
    file: &Path,
) -> Result<(Thresholds, Weights), Error> {
    let mut t = Thresholds::default();
    let mut w = DEFAULT_WEIGHTS;
    for layer in [&Overrides::from(config), input] {
        let set = |target: &mut f64, value: Option<f64>| {
            if let Some(v) = value {
                *target = v;
            }
        };
        let set_u = |target: &mut u32, value: Option<u32>| {
            if let Some(v) = value {
                *target = v;
            }
        };
        set(&mut t.security_min, layer.security_min);
        set(&mut t.quality_min, layer.quality_min);
        set(&mut t.performance_min, layer.performance_min);
        set(&mut t.overall_min, layer.overall_min);
        set_u(&mut t.max_critical_issues, layer.max_critical_issues);
        set_u(&mut t.max_high_issues, layer.max_high_issues);
        set_u(&mut t.max_iterations, layer.max_iterations);
        set(&mut t.stall_threshold, layer.stall_threshold);
        set_u(&mut t.stall_rounds, layer.stall_rounds);
        set(&mut w.security, layer.weight_security);
        set(&mut w.quality, layer.weight_quality);
        set(&mut w.performance, layer.weight_performance);
    }
    let sum = w.security + w.quality + w.performance;
    if (sum - 1.0).abs() > WEIGHT_SUM_TOLERANCE {
        return Err(Error::Input {
            path: file.to_path_buf(),
            location: None,
            key: Some("$.tech_stack.weights".into()),
            message: format!(
                "the merged weights (security {}, quality {}, performance {}) sum to {}, \
                 not 1.0 (±0.001)",
                w.security,
                w.quality,
                w.performance,
                (sum * 1e6).round() / 1e6
            ),
        });
    }
    Ok((t, w))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file() -> &'static Path {
        Path::new("in.json")
    }

    #[test]
    fn defaults_are_the_reference_judges() {
        let (t, w) = resolve(&JudgeConfig::default(), &Overrides::default(), file()).unwrap();
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
        assert_eq!(w, DEFAULT_WEIGHTS);
    }

    #[test]
    fn the_input_overrides_judge_which_overrides_the_defaults_key_by_key() {
        let config = JudgeConfig {
            security_min: Some(90.0),
            quality_min: Some(70.0),
            max_iterations: Some(8),
            weights: Some(Weights {
                security: 0.5,
                quality: 0.3,
                performance: 0.2,
            }),
            ..JudgeConfig::default()
        };
        let input = Overrides {
            quality_min: Some(75.0),
            stall_rounds: Some(3),
            weight_security: Some(0.4),
            weight_quality: Some(0.4),
            ..Overrides::default()
        };
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
    fn merged_weights_must_sum_to_one_within_the_tolerance() {
        // 0.5 + 0.35 + 0.25 = 1.1 once merged with the defaults.
        let input = Overrides {
            weight_security: Some(0.5),
            ..Overrides::default()
        };
        let err = resolve(&JudgeConfig::default(), &input, file()).unwrap_err();
        assert_eq!(
            err.to_string(),
            "in.json: $.tech_stack.weights: the merged weights (security 0.5, quality 0.35, \
             performance 0.25) sum to 1.1, not 1.0 (±0.001)"
        );
        assert_eq!(err.exit_code(), 2);
        // 0.4009 + 0.35 + 0.25 = 1.0009: inside ±0.001.
        let input = Overrides {
            weight_security: Some(0.4009),
            ..Overrides::default()
        };
        assert!(resolve(&JudgeConfig::default(), &input, file()).is_ok());
        // 0.4011 + 0.35 + 0.25 = 1.0011: outside.
        let input = Overrides {
            weight_security: Some(0.4011),
            ..Overrides::default()
        };
        assert!(resolve(&JudgeConfig::default(), &input, file()).is_err());
    }
}
