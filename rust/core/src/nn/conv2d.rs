//! `nn.Conv2d`: a 2-D convolution over `[N, C, H, W]` inputs.

use super::init::{default_bound, uniform};
use super::Module;
use crate::{bail, Result, Tensor};

/// The options of [`Conv2d`] other than channels and kernel size, with PyTorch's defaults
/// (stride 1, padding 0, dilation 1, groups 1, with bias).
///
/// # Examples
///
/// ```
/// let cfg = ferrotorch::nn::Conv2dConfig::default().padding(1).stride(2);
/// assert_eq!((cfg.padding, cfg.stride, cfg.groups), ([1, 1], [2, 2], 1));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Conv2dConfig {
    /// Step of the kernel along (height, width).
    pub stride: [usize; 2],
    /// Zeros added on both sides along (height, width).
    pub padding: [usize; 2],
    /// Spacing between kernel taps along (height, width).
    pub dilation: [usize; 2],
    /// Channel groups: in and out channels must both divide by it.
    pub groups: usize,
    /// Whether the layer adds a learned bias per output channel.
    pub bias: bool,
}

impl Default for Conv2dConfig {
    fn default() -> Self {
        Conv2dConfig {
            stride: [1, 1],
            padding: [0, 0],
            dilation: [1, 1],
            groups: 1,
            bias: true,
        }
    }
}

impl Conv2dConfig {
    /// The same stride along both dims.
    pub fn stride(mut self, s: usize) -> Self {
        self.stride = [s, s];
        self
    }
    /// The same padding along both dims.
    pub fn padding(mut self, p: usize) -> Self {
        self.padding = [p, p];
        self
    }
    /// The same dilation along both dims.
    pub fn dilation(mut self, d: usize) -> Self {
        self.dilation = [d, d];
        self
    }
    /// The number of channel groups.
    pub fn groups(mut self, g: usize) -> Self {
        self.groups = g;
        self
    }
    /// With or without bias.
    pub fn bias(mut self, on: bool) -> Self {
        self.bias = on;
        self
    }
}

/// A 2-D convolution, as `torch.nn.Conv2d`.
///
/// `weight` is `[out_channels, in_channels / groups, kh, kw]` and `bias` `[out_channels]`,
/// both from `U(-1/sqrt(fan_in), 1/sqrt(fan_in))` with `fan_in = in_channels / groups * kh *
/// kw`, as in PyTorch.
///
/// # Examples
///
/// ```
/// use ferrotorch::nn::{Conv2d, Conv2dConfig, Module};
/// let conv = Conv2d::with_config(1, 16, [3, 3], Conv2dConfig::default().padding(1))?;
/// let y = conv.forward(&ferrotorch::randn(&[2, 1, 8, 8])?)?;
/// assert_eq!(y.shape(), &[2, 16, 8, 8]);
/// # Ok::<(), ferrotorch::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct Conv2d {
    weight: Tensor,
    bias: Option<Tensor>,
    config: Conv2dConfig,
}

impl Conv2d {
    /// A square `kernel_size` convolution with the default options.
    pub fn new(in_channels: usize, out_channels: usize, kernel_size: usize) -> Result<Conv2d> {
        Conv2d::with_config(
            in_channels,
            out_channels,
            [kernel_size, kernel_size],
            Conv2dConfig::default(),
        )
    }

    /// A convolution with a `[kh, kw]` kernel and the given options.
    ///
    /// # Errors
    ///
    /// If `groups` is 0 or does not divide both channel counts.
    pub fn with_config(
        in_channels: usize,
        out_channels: usize,
        kernel_size: [usize; 2],
        config: Conv2dConfig,
    ) -> Result<Conv2d> {
        let g = config.groups;
        if g == 0 || !in_channels.is_multiple_of(g) || !out_channels.is_multiple_of(g) {
            bail!(
                Value,
                "Conv2d: in_channels ({in_channels}) and out_channels ({out_channels}) must be divisible by groups ({g})"
            );
        }
        let [kh, kw] = kernel_size;
        let bound = default_bound(in_channels / g * kh * kw);
        Ok(Conv2d {
            weight: uniform(&[out_channels, in_channels / g, kh, kw], bound)?,
            bias: if config.bias {
                Some(uniform(&[out_channels], bound)?)
            } else {
                None
            },
            config,
        })
    }

    /// The `[out_channels, in_channels / groups, kh, kw]` weight.
    pub fn weight(&self) -> &Tensor {
        &self.weight
    }

    /// The `[out_channels]` bias, if the layer has one.
    pub fn bias(&self) -> Option<&Tensor> {
        self.bias.as_ref()
    }

    /// Stride, padding, dilation, groups and bias.
    pub fn config(&self) -> Conv2dConfig {
        self.config
    }
}

impl Module for Conv2d {
    fn forward(&self, input: &Tensor) -> Result<Tensor> {
        let c = &self.config;
        if input.ndim() == 3 {
            // Unbatched [C, H, W], as PyTorch accepts.
            return self.forward(&input.unsqueeze(0)?)?.squeeze(Some(&[0]));
        }
        input.conv2d(
            &self.weight,
            self.bias.as_ref(),
            c.stride,
            c.padding,
            c.dilation,
            c.groups,
        )
    }

    fn named_parameters(&self) -> Vec<(String, Tensor)> {
        let mut p = vec![("weight".to_string(), self.weight.clone())];
        p.extend(self.bias.iter().map(|b| ("bias".to_string(), b.clone())));
        p
    }
}
