//! The one registry of mechanism names. Every mechanism a scenario chooses by
//! name (congestion control, MPTCP scheduler and path manager, TLP mode, SCTP
//! policies, ...) is a `named_enum!` beside its implementation, e.g.
//! `mptcp::sched::SchedulerKind` with a `build()` factory. The scenario
//! parser, `mptlab list`, validation, the simulator and the emulator all read
//! these enums, so a name is registered once and never travels as a string
//! into a model.
//!
//! `named_enum!` declares a fieldless enum whose variants carry the name as
//! written in scenario files and a one-line description (and, optionally, the
//! expression that builds the mechanism: a factory such as
//! `SchedulerKind::build`), and gives it:
//! `ALL` (listing order), `NAMES`, `name()`, `description()`, `from_name()`,
//! `Display`, `FromStr`, and (with this crate's `serde` feature) `Serialize`
//! and `Deserialize` by name. An unknown name fails with serde's usual
//! "unknown variant `x`, expected one of `a`, `b`" message, which the
//! scenario crate extends with a "did you mean" hint.
//!
//! The macro is exported, so crates outside mptlab-core (the scenario crate's
//! protocol, traffic and topology names) declare theirs the same way.

/// Declare a named enum (see the module documentation).
///
/// ```
/// mptlab_core::named_enum! {
///     /// Colours.
///     pub enum Colour {
///         Red = "red": "the colour of fire",
///         Blue = "blue": "the colour of the sea",
///     }
/// }
/// assert_eq!(Colour::from_name("blue"), Some(Colour::Blue));
/// assert_eq!(Colour::Red.to_string(), "red");
/// assert_eq!(Colour::NAMES, &["red", "blue"]);
///
/// // With a factory: one line per variant names it, describes it and builds it.
/// mptlab_core::named_enum! {
///     pub enum Shape {
///         /// The shape's number of corners.
///         fn corners(scale: u32) -> u32;
///         Triangle = "triangle": "three corners" => 3 * scale,
///         Square = "square": "four corners" => 4 * scale,
///     }
/// }
/// assert_eq!(Shape::Square.corners(2), 8);
/// ```
#[macro_export]
macro_rules! named_enum {
    // With a factory: `fn build(args) -> T;` first, then `=> expr` after each
    // variant's description (the expression may use the arguments).
    ($(#[$m:meta])* $vis:vis enum $name:ident {
        $(#[$fm:meta])* fn $f:ident($($arg:ident : $argty:ty),* $(,)?) -> $ret:ty;
        $($(#[$vm:meta])* $var:ident = $s:literal : $desc:literal => $build:expr),* $(,)?
    }) => {
        $crate::named_enum! {
            $(#[$m])* $vis enum $name { $($(#[$vm])* $var = $s : $desc),* }
        }
        impl $name {
            $(#[$fm])*
            #[allow(unused_variables)]
            pub fn $f(self, $($arg: $argty),*) -> $ret {
                match self { $($name::$var => $build),* }
            }
        }
    };
    ($(#[$m:meta])* $vis:vis enum $name:ident { $($(#[$vm:meta])* $var:ident = $s:literal : $desc:literal),* $(,)? }) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        $vis enum $name { $($(#[$vm])* $var),* }
        impl $name {
            /// Every value, in the order `mptlab list` prints them.
            pub const ALL: &'static [$name] = &[$($name::$var),*];
            /// Every name, in the order of `ALL`.
            pub const NAMES: &'static [&'static str] = &[$($s),*];
            /// The name as written in scenario files.
            pub fn name(self) -> &'static str { match self { $($name::$var => $s),* } }
            /// One-line description.
            pub fn description(self) -> &'static str { match self { $($name::$var => $desc),* } }
            /// Look a value up by its scenario-file name.
            pub fn from_name(s: &str) -> Option<Self> { Self::ALL.iter().copied().find(|v| v.name() == s) }
        }
        impl ::std::fmt::Display for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result { f.write_str(self.name()) }
        }
        impl ::std::str::FromStr for $name {
            type Err = $crate::registry::UnknownName;
            fn from_str(s: &str) -> Result<Self, Self::Err> {
                Self::from_name(s).ok_or_else(|| $crate::registry::UnknownName {
                    found: s.to_string(),
                    expected: Self::NAMES,
                })
            }
        }
        $crate::__named_enum_serde!($name);
    };
}

/// `Serialize`/`Deserialize` by name for a `named_enum!` (serde feature).
#[cfg(feature = "serde")]
#[doc(hidden)]
#[macro_export]
macro_rules! __named_enum_serde {
    ($name:ident) => {
        impl $crate::registry::__serde::Serialize for $name {
            fn serialize<S: $crate::registry::__serde::Serializer>(
                &self,
                s: S,
            ) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.name())
            }
        }
        impl<'de> $crate::registry::__serde::Deserialize<'de> for $name {
            fn deserialize<D: $crate::registry::__serde::Deserializer<'de>>(
                d: D,
            ) -> Result<Self, D::Error> {
                struct V;
                impl $crate::registry::__serde::de::Visitor<'_> for V {
                    type Value = $name;
                    fn expecting(&self, f: &mut ::std::fmt::Formatter) -> ::std::fmt::Result {
                        write!(f, "one of `{}`", $name::NAMES.join("`, `"))
                    }
                    fn visit_str<E: $crate::registry::__serde::de::Error>(
                        self,
                        s: &str,
                    ) -> Result<$name, E> {
                        $name::from_name(s).ok_or_else(|| E::unknown_variant(s, $name::NAMES))
                    }
                }
                d.deserialize_str(V)
            }
        }
    };
}

/// Without the serde feature: nothing.
#[cfg(not(feature = "serde"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __named_enum_serde {
    ($name:ident) => {};
}

#[cfg(feature = "serde")]
#[doc(hidden)]
pub use serde as __serde;

/// A name that is not in a `named_enum!` (from `FromStr`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownName {
    pub found: String,
    pub expected: &'static [&'static str],
}

impl std::fmt::Display for UnknownName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "unknown name \"{}\" (expected one of {})",
            self.found,
            self.expected.join(", ")
        )
    }
}

impl std::error::Error for UnknownName {}

/// One category of names for `mptlab list`: a heading, the scenario key the
/// names are used with, and (name, description) pairs.
#[derive(Clone, Debug)]
pub struct Category {
    /// Heading, e.g. "mptcp schedulers".
    pub title: String,
    /// Scenario key(s) the names are used with.
    pub key: String,
    pub entries: Vec<(String, String)>,
}

impl Category {
    /// A category listing every value of a `named_enum!`.
    pub fn of<T: Copy>(
        title: &str,
        key: &str,
        all: &[T],
        f: impl Fn(T) -> (&'static str, &'static str),
    ) -> Category {
        Category {
            title: title.into(),
            key: key.into(),
            entries: all
                .iter()
                .map(|v| f(*v))
                .map(|(a, b)| (a.to_string(), b.to_string()))
                .collect(),
        }
    }
}

/// Build a `Category` from a `named_enum!` type: `category!(Type, "title", "key")`.
#[macro_export]
macro_rules! category {
    ($t:ty, $title:expr, $key:expr) => {
        $crate::registry::Category::of($title, $key, <$t>::ALL, |v| (v.name(), v.description()))
    };
}

/// The mechanisms implemented in mptlab-core, in `mptlab list` order
/// (the scenario crate adds protocols, traffic, loss and topology names
/// around them).
pub fn transport_categories() -> Vec<Category> {
    use crate::mptcp::{PathManager, SchedulerKind, TlpMode};
    use crate::tcp::cc::{CcKind, CubicVariant, HyStartMode};
    vec![
        category!(CcKind, "congestion controls", "transport.cc"),
        category!(CubicVariant, "cubic variants", "transport.cubic"),
        category!(HyStartMode, "cubic slow-start exits", "transport.hystart"),
        category!(
            SchedulerKind,
            "mptcp schedulers",
            "transport.mptcp.scheduler"
        ),
        category!(
            PathManager,
            "mptcp path managers",
            "transport.mptcp.path_manager"
        ),
        category!(TlpMode, "mptcp tail loss probes", "transport.mptcp.tlp"),
    ]
}

/// SCTP's mechanisms, in `mptlab list` order.
pub fn sctp_categories() -> Vec<Category> {
    use crate::sctp::{BufferSplit, CcVariant, Preset, RtxPolicy, Scheduler};
    vec![
        category!(Preset, "sctp presets", "transport.sctp.preset"),
        category!(Scheduler, "cmt-sctp schedulers", "transport.sctp.scheduler"),
        category!(
            RtxPolicy,
            "sctp retransmission paths",
            "transport.sctp.retransmission"
        ),
        category!(
            BufferSplit,
            "cmt-sctp buffer splitting",
            "transport.sctp.buffer_splitting"
        ),
        category!(CcVariant, "sctp congestion control", "transport.sctp.cc"),
    ]
}
