//! Unit tokens and the animation of events.
//!
//! A token is a base in its side's colour and shape (sides differ in both), the silhouette of
//! its template on top, a health bar, status icons and, on hover or while acting, its name.
//! Tokens are drawn from the battle's `shown` state. Queued events are shown one at a time:
//! a step slides the token, an attack lunges at the target with "Hit"/"Miss" and damage
//! numbers floating up, a fallen unit fades. The speed setting scales every animation;
//! "skip animations" (or Space) shows everything at once.

use bevy::prelude::*;
use bevy::sprite::Text2dShadow;

use super::Screen;
use super::art::{Art, Icon};
use super::battle::{Battle, Settings};
use super::board::{BoardGrid, BoardLayout, OnBoard};
use super::camera::BoardText;
use super::hud::View;
use super::input::CursorCell;
use crate::rules::battle::{BattleState, Condition, Event, Status, Unit, UnitId};

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<Anim>().add_systems(
        Update,
        (
            play_events,
            sync_tokens,
            place_tokens,
            side_colours,
            float_texts,
        )
            .chain()
            .in_set(super::AppSystems::Update)
            .run_if(in_state(Screen::Battle).and_then(resource_exists::<Battle>)),
    );
}

/// A unit's token; the index is the unit's id.
#[derive(Component, Debug, Clone, Copy, PartialEq, Eq)]
pub struct UnitToken(pub usize);

/// Parts of a token updated every frame.
#[derive(Component)]
struct TokenBase;
#[derive(Component)]
struct TokenSilhouette;
#[derive(Component)]
struct TokenName;
#[derive(Component)]
struct HealthFill;
/// The back of a token's health bar (hidden when it has none).
#[derive(Component)]
pub struct HealthBack;
#[derive(Component)]
struct ActiveRing;
#[derive(Component)]
struct StatusIcons;

/// Units draw above the board and its overlays.
pub const UNIT_Z: f32 = 10.0;

/// The colour of `side` in the standard palette (Okabe–Ito, distinguishable with the common
/// colour-vision deficiencies), or in the colour-blind-safe one (the setting
/// `Settings::colour_blind`); unknown sides are grey. Callers pass the setting: a process-wide
/// switch would let one app's palette leak into another's (the tests run several at once).
pub fn side_colour(side: Option<usize>, colour_blind: bool) -> Color {
    // Blue and orange first: the pair told apart with every common colour-vision deficiency
    // (and in greyscale, orange being much lighter); then the rest of Okabe-Ito.
    const SAFE: [(u8, u8, u8); 7] = [
        (0, 90, 181),    // blue
        (240, 170, 30),  // orange
        (204, 121, 167), // reddish purple
        (86, 180, 233),  // sky blue
        (0, 158, 115),   // bluish green
        (240, 228, 66),  // yellow
        (213, 94, 0),    // vermillion
    ];
    const PALETTE: [(u8, u8, u8); 7] = [
        (0, 114, 178),   // blue
        (213, 94, 0),    // vermillion
        (0, 158, 115),   // bluish green
        (204, 121, 167), // reddish purple
        (230, 159, 0),   // orange
        (86, 180, 233),  // sky blue
        (240, 228, 66),  // yellow
    ];
    let palette = if colour_blind { &SAFE } else { &PALETTE };
    match side {
        Some(i) => {
            let (r, g, b) = palette[i % palette.len()];
            Color::srgb_u8(r, g, b)
        }
        None => Color::srgb(0.5, 0.5, 0.5),
    }
}

/// Pools that measure health, most telling first: the bar shows the first a unit has.
const HEALTH_POOLS: [&str; 6] = ["hp", "health", "body", "endurance", "stun", "wounds"];

/// The health pool of a unit and its fraction left (by the template's stat of the same name).
pub fn health(u: &Unit) -> Option<(&'static str, f32)> {
    let key = HEALTH_POOLS.iter().find(|k| u.pools.contains_key(**k))?;
    let max = u.stat(key).max(u.pool(key)).max(1);
    Some((key, (u.pool(key) as f32 / max as f32).clamp(0.0, 1.0)))
}

/// A pool's name for the player: the rulesets' short keys that would read as something else
/// ("death 10" is the difficulty of the next death test) in words; others as they are.
pub fn pool_words(key: &str) -> &str {
    match key {
        "ap" => "AP",
        "death" => "death test difficulty",
        "weapon" => "weapon durability",
        "shield" => "shield durability",
        "loaded" => "loaded",
        "actions" => "actions left",
        "reactions" => "reactions left",
        other => other,
    }
}

/// Every pool in words, in two parts: the gauges (pools with a maximum), health first as the
/// bar shows it, then the rest by size ("health 20/20, endurance 18/18, stamina 3/3, focus
/// 1/1"), and the counters with no maximum ("reactions left 1, death test difficulty 10").
/// Either may be empty.
pub fn pool_parts(u: &Unit) -> (String, String) {
    let mut gauges: Vec<(usize, i64, String)> = Vec::new();
    let mut counters = Vec::new();
    for (k, v) in &u.pools {
        let max = u.stat(k);
        let words = pool_words(k);
        if words == "loaded" {
            counters.push(if *v > 0 { "loaded" } else { "not loaded" }.to_string());
        } else if max > 0 {
            let rank = HEALTH_POOLS
                .iter()
                .position(|h| *h == &**k)
                .unwrap_or(HEALTH_POOLS.len());
            // Hit points below 0 show as 0: the unit is down (the rules keep the number).
            let v = crate::rules::battle::log::shown_value(k, *v);
            gauges.push((rank, -max, format!("{words} {v}/{max}")));
        } else {
            counters.push(format!("{words} {v}"));
        }
    }
    gauges.sort();
    let gauges: Vec<String> = gauges.into_iter().map(|(_, _, t)| t).collect();
    // What the unit may still do this turn first.
    counters.sort_by_key(|c| !(c.starts_with("actions") || c.starts_with("reactions")));
    (gauges.join(", "), counters.join(", "))
}

/// Every pool in words on one line: the gauges, then the counters after a semicolon ("hp
/// 10/14, AP 2/3").
pub fn health_text(u: &Unit) -> String {
    match pool_parts(u) {
        (g, c) if g.is_empty() && c.is_empty() => "no pools yet".into(),
        (g, c) if c.is_empty() => g,
        (g, c) if g.is_empty() => c,
        (g, c) => format!("{g}; {c}"),
    }
}

/// The first gauge alone, health where the unit has one (the Result screen's roll of units):
/// "health 12/20".
pub fn health_gauge(u: &Unit) -> String {
    let (g, _) = pool_parts(u);
    g.split(", ").next().unwrap_or_default().to_string()
}

/// A condition in words, naming units by name.
pub fn condition_name(s: &BattleState, c: &Condition) -> String {
    let name = |u: &UnitId| s.unit_name(*u);
    match c {
        Condition::Prone => "prone".into(),
        Condition::Surprised => "surprised".into(),
        Condition::Stunned => "stunned".into(),
        Condition::Grappled { by } => format!("grappled by {}", name(by)),
        Condition::Dodging => "dodging".into(),
        Condition::Guarding => "guarding".into(),
        Condition::TotalDefense => "total defense".into(),
        Condition::Disengaged => "disengaged".into(),
        Condition::InCover => "in cover".into(),
        Condition::Screening { ally } => format!("screening {}", name(ally)),
        Condition::Holding => "holding an action".into(),
        Condition::Casting => "casting".into(),
        #[allow(unreachable_patterns)]
        other => format!("{other:?}").to_lowercase(),
    }
}

/// The marks on `id`'s token, at most four: "down" for the fallen ("fled" for one that left
/// the map), "fleeing" for one that broke and runs for the map's edge, then its conditions.
/// None on a foe out of the viewer's sight (`s` is the viewer's fogged view).
pub fn status_icons(s: &BattleState, id: UnitId) -> Vec<Icon> {
    let Some(u) = s.unit(id) else {
        return Vec::new();
    };
    // A foe out of sight, drawn where it was last seen: what it is doing now is not known.
    if s.fog
        .as_ref()
        .is_some_and(|k| k.is_ghost(id) || k.is_unknown(id))
    {
        return Vec::new();
    }
    let mut icons: Vec<Icon> = Vec::new();
    if crate::rules::rulesets::fled(s, id) {
        icons.push(Icon::Fled);
    } else if u.status != Status::Active {
        icons.push(Icon::Down);
    } else if crate::rules::rulesets::broken(s, id) {
        icons.push(Icon::Fleeing);
    }
    icons.extend(u.conditions.iter().map(condition_icon));
    icons.truncate(4);
    icons
}

/// The icon of a condition.
pub fn condition_icon(c: &Condition) -> Icon {
    match c {
        Condition::Prone => Icon::Prone,
        Condition::Surprised => Icon::Surprised,
        Condition::Stunned => Icon::Stunned,
        Condition::Grappled { .. } => Icon::Grappled,
        Condition::Dodging => Icon::Dodging,
        Condition::Guarding => Icon::Guarding,
        Condition::TotalDefense => Icon::TotalDefense,
        Condition::Disengaged => Icon::Disengaged,
        Condition::InCover => Icon::InCover,
        Condition::Screening { .. } => Icon::Screening,
        Condition::Holding => Icon::Holding,
        Condition::Casting => Icon::Casting,
        #[allow(unreachable_patterns)]
        _ => Icon::Other,
    }
}

/// The event being animated.
#[derive(Resource, Default, Debug)]
pub struct Anim {
    pub current: Option<Playing>,
}

#[derive(Debug, Clone)]
pub struct Playing {
    pub event: Event,
    /// Seconds played.
    pub t: f32,
    pub duration: f32,
}

impl Playing {
    fn progress(&self) -> f32 {
        if self.duration <= 0.0 {
            1.0
        } else {
            (self.t / self.duration).clamp(0.0, 1.0)
        }
    }
}

/// How long an event animates at normal speed, in seconds (0: at once).
pub fn duration(e: &Event) -> f32 {
    match e {
        Event::Moved { .. } => 0.16,
        Event::Placed { .. } => 0.2,
        Event::Attacked { .. } => 0.45,
        Event::Status { status, .. } if *status != Status::Active => 0.4,
        Event::Pool { pool, delta, .. } if *delta < 0 && HEALTH_POOLS.contains(&pool.as_str()) => {
            0.25
        }
        Event::RoundStarted { .. } => 0.3,
        // A level's event: a message, an arrival, new objectives (announced, see `announce`).
        Event::Scripted(s) if announce(s) => 0.8,
        _ => 0.0,
    }
}

/// Whether a level's scripted event is announced over the board (as a toast, besides its log
/// line): a message, a reinforcement's arrival (or its lack of room), new objectives.
fn announce(s: &crate::rules::battle::script::Scripted) -> bool {
    !matches!(s, crate::rules::battle::script::Scripted::Fired { .. })
}

/// Floating text over the board ("-6", "Miss").
#[derive(Component)]
pub struct Floater {
    life: f32,
    age: f32,
}

/// Where a floating text of font size `size` goes, wanted at `at`: below any floating text
/// still up that it would overlap (several numbers of one blow, "-2 body" and "-10 stun", read
/// one under the other rather than on top of each other). `taken` holds where the others are,
/// and gets this one.
fn float_place(at: Vec2, size: f32, text: &str, taken: &mut Vec<(Vec2, Vec2)>) -> Vec2 {
    let half = super::labels::text_size(text, size) / 2.0;
    let mut p = at;
    for _ in 0..8 {
        let Some((q, h)) = taken
            .iter()
            .find(|(q, h)| (q.x - p.x).abs() < half.x + h.x && (q.y - p.y).abs() < half.y + h.y)
        else {
            break;
        };
        p.y = q.y - h.y - half.y - 2.0;
    }
    taken.push((p, half));
    p
}

fn float_text(
    commands: &mut Commands,
    at: Vec2,
    text: String,
    colour: Color,
    size: f32,
    scale: f32,
) {
    commands.spawn((
        Name::new("Floating text"),
        Floater {
            life: 1.1,
            age: 0.0,
        },
        OnBoard,
        BoardText,
        DespawnOnExit(Screen::Battle),
        Text2d::new(text),
        TextFont {
            font_size: FontSize::Px(size),
            ..default()
        },
        TextColor(colour),
        Text2dShadow {
            offset: Vec2::new(1.5, -1.5),
            color: Color::srgba(0.0, 0.0, 0.0, 0.9),
        },
        Transform::from_translation(at.extend(UNIT_Z + 5.0))
            .with_scale(Vec3::new(scale, scale, 1.0)),
    ));
}

#[allow(clippy::too_many_arguments)]
fn play_events(
    mut commands: Commands,
    mut battle: ResMut<Battle>,
    mut anim: ResMut<Anim>,
    settings: Res<Settings>,
    keys: Res<ButtonInput<KeyCode>>,
    time: Res<Time>,
    view: Res<View>,
    mut toasts: MessageWriter<super::battle::Toast>,
    boards: Query<&BoardGrid>,
    floaters: Query<(&Transform, &Text2d, &TextFont), With<Floater>>,
    cameras: Query<&Projection, With<super::camera::MainCamera>>,
    ui_scale: Option<Res<UiScale>>,
) {
    let skip =
        settings.skip_animations || settings.keys.just_pressed(&super::keys::SHOW_NOW, &keys);
    if let Some(p) = anim.current.as_mut() {
        p.t += time.delta_secs() * settings.speed;
        if p.t >= p.duration || skip {
            anim.current = None;
        }
    }
    if anim.current.is_some() || battle.queue.is_empty() {
        return;
    }
    let layout = boards.iter().next().map(|g| BoardLayout::new(g.0));
    let size = layout
        .as_ref()
        .map_or(64.0, |l| l.tile_size.x.min(l.tile_size.y));
    // The floating texts still up, as (centre, half size as drawn): a new one goes clear of
    // them. Board text is scaled up on a zoomed-out board (`camera::board_text_scale`), so the
    // sizes are the scaled ones: unscaled, two numbers of one blow overlapped at 1024x640.
    let mut taken: Vec<(Vec2, Vec2)> = floaters
        .iter()
        .map(|(t, text, font)| {
            let px = match font.font_size {
                FontSize::Px(px) => px,
                _ => 16.0,
            };
            (
                t.translation.truncate(),
                super::labels::text_size(&text.0, px) * t.scale.x.max(1e-3) / 2.0,
            )
        })
        .collect();
    let world_per_px = match cameras.single() {
        Ok(Projection::Orthographic(o))
            if matches!(o.scaling_mode, bevy::camera::ScalingMode::WindowSize) =>
        {
            o.scale
        }
        _ => 1.0,
    };
    let ui = ui_scale.as_ref().map_or(1.0, |s| s.0);
    let mut float = |commands: &mut Commands, at: Vec2, text: String, colour: Color, px: f32| {
        let k = super::camera::board_text_scale(px, world_per_px, ui);
        let at = float_place(at, px * k, &text, &mut taken);
        float_text(commands, at, text, colour, px, k);
    };
    // Show events until one needs time (all of them when skipping).
    let mut shown = 0;
    while let Some(event) = battle.show_next() {
        shown += 1;
        // Under fog of war, what the viewer's side does not see takes no time and floats no
        // word over the board: it would tell where a hidden foe is.
        let seen = view
            .viewer
            .is_none_or(|v| crate::rules::fog::shows(&battle.shown, &event, v));
        let at = |u: UnitId, s: &BattleState| {
            let cell = s.unit(u).map(|u| u.cell).filter(|_| seen)?;
            layout.as_ref()?.cell_center(cell)
        };
        match &event {
            Event::Attacked {
                target, hit, crit, ..
            } => {
                if let Some(p) = at(*target, &battle.shown) {
                    let (t, c) = match (hit, crit) {
                        (true, true) => ("Critical!", Color::srgb(1.0, 0.85, 0.3)),
                        (true, false) => ("Hit", Color::srgb(1.0, 0.9, 0.75)),
                        _ => ("Miss", Color::srgb(0.75, 0.85, 1.0)),
                    };
                    float(
                        &mut commands,
                        p + Vec2::new(0.0, size * 0.5),
                        t.into(),
                        c,
                        size * 0.3,
                    );
                }
            }
            Event::Pool {
                unit, pool, delta, ..
            } if *delta != 0 && HEALTH_POOLS.contains(&pool.as_str()) => {
                // Only health floats: what an action spends (actions, AP, stamina) is in the
                // log, and over the board it buried the blow's numbers.
                if let Some(p) = at(*unit, &battle.shown) {
                    let label = if pool == "hp" {
                        format!("{delta:+}")
                    } else {
                        format!("{delta:+} {pool}")
                    };
                    let colour = if *delta < 0 {
                        Color::srgb(1.0, 0.45, 0.35)
                    } else {
                        Color::srgb(0.5, 1.0, 0.5)
                    };
                    float(
                        &mut commands,
                        p + Vec2::new(size * 0.2, size * 0.2),
                        label,
                        colour,
                        size * 0.36,
                    );
                }
            }
            Event::Status { unit, status } if *status != Status::Active => {
                if let Some(p) = at(*unit, &battle.shown) {
                    let t = if *status == Status::Dead {
                        "Dead"
                    } else {
                        "Down"
                    };
                    float(
                        &mut commands,
                        p + Vec2::new(0.0, -size * 0.2),
                        t.into(),
                        Color::srgb(1.0, 0.6, 0.6),
                        size * 0.3,
                    );
                }
            }
            Event::Scripted(s) if seen && announce(s) => {
                let line = crate::rules::battle::log::describe(&battle.shown, &event);
                if !line.is_empty() {
                    toasts.write(super::battle::Toast::say(line));
                }
            }
            _ => {}
        }
        let d = if seen { duration(&event) } else { 0.0 };
        if !skip && d > 0.0 {
            anim.current = Some(Playing {
                event,
                t: 0.0,
                duration: d,
            });
            break;
        }
        if shown > 10_000 {
            break;
        }
    }
}

fn float_texts(
    mut commands: Commands,
    time: Res<Time>,
    mut q: Query<(Entity, &mut Floater, &mut Transform, &mut TextColor)>,
) {
    let dt = time.delta_secs();
    for (e, mut f, mut t, mut c) in &mut q {
        f.age += dt;
        t.translation.y += 28.0 * dt;
        let a = (1.0 - f.age / f.life).clamp(0.0, 1.0);
        c.0.set_alpha(a);
        if f.age >= f.life {
            commands.entity(e).despawn();
        }
    }
}

/// The tokens' bases take their side's colour in the palette the settings ask for now, so the
/// colour-blind switch changes the battle on screen, not only the next one.
fn side_colours(
    battle: Res<Battle>,
    settings: Res<Settings>,
    tokens: Query<(&UnitToken, &Children)>,
    mut bases: Query<&mut Sprite, With<TokenBase>>,
) {
    for (token, children) in &tokens {
        let Some(u) = battle.shown.units.get(token.0) else {
            continue;
        };
        let hue = side_colour(Some(u.side.index()), settings.colour_blind);
        for c in children {
            if let Ok(mut sprite) = bases.get_mut(*c) {
                // The colour of the side, at the alpha `place_tokens` chose (a downed unit or
                // a foe out of sight is drawn faint).
                let want = hue.with_alpha(sprite.color.alpha());
                if sprite.color != want {
                    sprite.color = want;
                }
            }
        }
    }
}

/// Spawns tokens for a new board (or a battle with other units) and removes stale ones.
fn sync_tokens(
    mut commands: Commands,
    battle: Res<Battle>,
    art: Res<Art>,
    settings: Res<Settings>,
    tokens: Query<(Entity, &UnitToken)>,
    boards: Query<&BoardGrid, Added<BoardGrid>>,
) {
    let new_board = boards.iter().next().is_some();
    let count = tokens.iter().count();
    if !new_board && count == battle.shown.units.len() {
        return;
    }
    for (e, _) in &tokens {
        commands.entity(e).despawn();
    }
    let layout = BoardLayout::new(*battle.shown.grid());
    let size = layout.tile_size.x.min(layout.tile_size.y);
    for (i, u) in battle.shown.units.iter().enumerate() {
        let at = layout
            .cell_center(u.cell)
            .unwrap_or_default()
            .extend(UNIT_Z + i as f32 * 0.01);
        let silhouette = battle
            .shown
            .ruleset()
            .and_then(|r| r.template(&u.template))
            .map_or("soldier", |t| t.silhouette.as_str());
        commands.spawn(token(
            i,
            u,
            at,
            size,
            &art,
            silhouette,
            settings.colour_blind,
        ));
    }
}

/// One unit's token.
fn token(
    index: usize,
    unit: &Unit,
    at: Vec3,
    cell: f32,
    art: &Art,
    silhouette: &str,
    colour_blind: bool,
) -> impl Bundle {
    let side = unit.side.index();
    let shadow = Text2dShadow {
        offset: Vec2::new(1.5, -1.5),
        color: Color::srgba(0.0, 0.0, 0.0, 0.85),
    };
    let bar_w = cell * 0.7;
    let name_backing = super::labels::backing(
        art.pixel.clone(),
        &super::menu::ascii(&unit.name),
        cell * 0.24,
    );
    (
        Name::new(format!("Unit {}", unit.name)),
        UnitToken(index),
        OnBoard,
        DespawnOnExit(Screen::Battle),
        Transform::from_translation(at),
        Visibility::default(),
        children![
            (
                ActiveRing,
                Sprite {
                    image: art.ring.clone(),
                    color: Color::srgb(1.0, 0.9, 0.4),
                    custom_size: Some(Vec2::splat(cell * 0.95)),
                    ..default()
                },
                Transform::from_xyz(0.0, 0.0, -0.05),
                Visibility::Hidden,
            ),
            (
                TokenBase,
                Sprite {
                    image: art.base(side),
                    color: side_colour(Some(side), colour_blind),
                    custom_size: Some(Vec2::splat(cell * 0.78)),
                    ..default()
                },
                Transform::from_xyz(0.0, 0.0, 0.0),
            ),
            (
                TokenSilhouette,
                Sprite {
                    image: art.silhouette(silhouette),
                    custom_size: Some(Vec2::splat(cell * 0.62)),
                    ..default()
                },
                Transform::from_xyz(0.0, 0.0, 0.05),
            ),
            (
                HealthBack,
                Sprite {
                    image: art.pixel.clone(),
                    color: Color::srgba(0.0, 0.0, 0.0, 0.8),
                    custom_size: Some(Vec2::new(bar_w + 2.0, 6.0)),
                    ..default()
                },
                Transform::from_xyz(0.0, -cell * 0.42, 0.1),
            ),
            (
                HealthFill,
                Sprite {
                    image: art.pixel.clone(),
                    color: Color::srgb(0.4, 0.85, 0.4),
                    custom_size: Some(Vec2::new(bar_w, 4.0)),
                    ..default()
                },
                Transform::from_xyz(0.0, -cell * 0.42, 0.15),
            ),
            (
                StatusIcons,
                Transform::from_xyz(-cell * 0.34, cell * 0.38, 0.3),
                Visibility::default(),
            ),
            (
                TokenName,
                BoardText,
                super::labels::BoardLabel {
                    anchor: Rect::from_center_size(at.truncate(), Vec2::splat(cell)),
                    kind: super::labels::LabelKind::Name,
                },
                Text2d::new(super::menu::ascii(&unit.name)),
                TextFont {
                    font_size: FontSize::Px(cell * 0.24),
                    ..default()
                },
                TextColor(Color::srgb(1.0, 0.98, 0.9)),
                shadow,
                Transform::from_xyz(0.0, -cell * 0.6, 0.4),
                Visibility::Hidden,
                children![name_backing],
            ),
        ],
    )
}

#[allow(clippy::type_complexity, clippy::too_many_arguments)]
fn place_tokens(
    mut commands: Commands,
    battle: Res<Battle>,
    view: Res<View>,
    anim: Res<Anim>,
    cursor: Res<CursorCell>,
    targeting: Res<crate::game::hud::Targeting>,
    art: Res<Art>,
    mut tokens: Query<(&UnitToken, &mut Transform, &mut Visibility, &Children)>,
    mut parts: ParamSet<(
        Query<&mut Sprite, With<TokenBase>>,
        Query<&mut Sprite, With<TokenSilhouette>>,
        Query<(&mut Sprite, &mut Transform), (With<HealthFill>, Without<UnitToken>)>,
        Query<&mut Visibility, (With<TokenName>, Without<UnitToken>)>,
        Query<&mut Visibility, (With<ActiveRing>, Without<UnitToken>)>,
        Query<(Entity, Option<&Children>), With<StatusIcons>>,
        Query<&mut Visibility, (With<HealthBack>, Without<UnitToken>)>,
    )>,
    mut last_icons: Local<Vec<(Option<Entity>, Vec<Icon>)>>,
) {
    let s = view.state.as_ref().unwrap_or(&battle.shown);
    let layout = BoardLayout::new(*s.grid());
    let size = layout.tile_size.x.min(layout.tile_size.y);
    let acting = battle.shown.pending().unit();
    if last_icons.len() != s.units.len() {
        *last_icons = vec![(None, Vec::new()); s.units.len()];
    }
    // The acting unit's name gives way to a hovered neighbour's: two names side by side run
    // into each other at the fitted zoom.
    let other_hovered = cursor.0.is_some_and(|c| {
        s.unit_ids()
            .any(|id| Some(id) != acting && s.units[id.index()].cell == c)
    });
    // While a group is chosen (Charge, Shove...), the units it may target are named, so the
    // player knows whom each entry of its list means.
    let named_targets: Vec<UnitId> = targeting
        .group
        .as_deref()
        .map(|g| {
            view.legal
                .iter()
                .filter(|d| crate::game::hud::group_label(&d.command) == g)
                .filter_map(|d| d.command.anchor().unit)
                .collect()
        })
        .unwrap_or_default();
    for (token, mut transform, mut visibility, children) in &mut tokens {
        let Some(u) = s.units.get(token.0) else {
            continue;
        };
        let id = UnitId(token.0 as u16);
        // Fog of war: a foe the viewer does not know where to find is not drawn; one out of
        // sight is drawn faint where it was last seen.
        let drawn = crate::rules::fog::drawn(s, id);
        visibility.set_if_neq(if drawn {
            Visibility::Inherited
        } else {
            Visibility::Hidden
        });
        let ghost = s.fog.as_ref().is_some_and(|k| k.is_ghost(id));
        // A unit that fled left the map: it is not drawn as one lying there, once it has faded.
        let fled = crate::rules::rulesets::fled(s, id) && !u.is_active();
        let mut pos = layout.cell_center(u.cell).unwrap_or_default();
        let mut alpha = match u.status {
            _ if fled => 0.0,
            Status::Active => 1.0,
            Status::Down => 0.55,
            Status::Dead => 0.25,
        } * if ghost { 0.4 } else { 1.0 };
        if let Some(p) = &anim.current {
            let k = p.progress();
            match &p.event {
                Event::Moved { unit, from, to } if *unit == id && !ghost => {
                    if let (Some(a), Some(b)) = (layout.cell_center(*from), layout.cell_center(*to))
                    {
                        pos = a.lerp(b, k);
                    }
                }
                Event::Attacked {
                    attacker,
                    target,
                    ranged,
                    hit,
                    ..
                } => {
                    let other = |u: UnitId| s.unit(u).and_then(|u| layout.cell_center(u.cell));
                    if *attacker == id
                        && let Some(t) = other(*target)
                    {
                        let dir = (t - pos).normalize_or_zero();
                        let reach = if *ranged { 0.08 } else { 0.3 };
                        pos += dir * size * reach * (k * std::f32::consts::PI).sin();
                    }
                    if *target == id && *hit {
                        pos.x += (k * 40.0).sin() * size * 0.05 * (1.0 - k);
                    }
                }
                Event::Status { unit, status } if *unit == id && *status != Status::Active => {
                    alpha = 1.0 - (1.0 - alpha) * k;
                }
                _ => {}
            }
        }
        if fled && alpha <= 0.0 {
            visibility.set_if_neq(Visibility::Hidden);
        }
        let z = UNIT_Z + token.0 as f32 * 0.01 + if u.is_active() { 1.0 } else { 0.0 };
        transform.translation = pos.extend(z);
        // A foe out of sight shows no health: the viewer does not know it.
        let (fraction, bar) = match health(u) {
            Some((_, f)) => (f, u.status != Status::Dead && !ghost),
            None => (1.0, false),
        };
        let hovered = cursor.0 == Some(u.cell);
        let is_acting = acting == Some(id);
        for child in children.iter() {
            if let Ok(mut sprite) = parts.p0().get_mut(child) {
                sprite.color.set_alpha(alpha);
            }
            if let Ok(mut sprite) = parts.p1().get_mut(child) {
                sprite.color = if u.status == Status::Active {
                    Color::WHITE
                } else {
                    Color::srgb(0.55, 0.55, 0.55)
                };
                sprite.color.set_alpha(alpha);
            }
            if let Ok((mut sprite, mut t)) = parts.p2().get_mut(child) {
                let w = size * 0.7;
                sprite.custom_size = Some(Vec2::new(w * fraction, 4.0));
                t.translation.x = -w * (1.0 - fraction) / 2.0;
                sprite.color = if fraction > 0.6 {
                    Color::srgb(0.35, 0.8, 0.35)
                } else if fraction > 0.3 {
                    Color::srgb(0.95, 0.75, 0.2)
                } else {
                    Color::srgb(0.95, 0.3, 0.25)
                };
                if !bar {
                    sprite.color.set_alpha(0.0);
                }
            }
            if let Ok(mut v) = parts.p6().get_mut(child) {
                *v = if bar {
                    Visibility::Inherited
                } else {
                    Visibility::Hidden
                };
            }
            if let Ok(mut v) = parts.p3().get_mut(child) {
                *v = if hovered || (is_acting && !other_hovered) || named_targets.contains(&id) {
                    Visibility::Inherited
                } else {
                    Visibility::Hidden
                };
            }
            if let Ok(mut v) = parts.p4().get_mut(child) {
                *v = if is_acting && u.is_active() {
                    Visibility::Inherited
                } else {
                    Visibility::Hidden
                };
            }
        }
        let icons = status_icons(s, id);
        // The holder too: tokens spawned anew (a quick load, a battle loaded in the state just
        // left) have empty holders, whatever icons the old ones showed.
        let holder = children.iter().find(|c| parts.p5().get(*c).is_ok());
        if last_icons[token.0] != (holder, icons.clone()) {
            last_icons[token.0] = (holder, icons.clone());
            for child in children.iter() {
                if let Ok((holder, _)) = parts.p5().get(child) {
                    commands
                        .entity(holder)
                        .despawn_children()
                        .with_children(|h| {
                            for (i, icon) in icons.iter().enumerate() {
                                h.spawn((
                                    Sprite {
                                        image: art.icon(*icon),
                                        custom_size: Some(Vec2::splat(size * 0.26)),
                                        ..default()
                                    },
                                    Transform::from_xyz(i as f32 * size * 0.24, 0.0, 0.0),
                                ));
                            }
                        });
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A unit's pools read as gauges, health first, then the counters with no maximum apart
    /// (an `alternating` unit listed eight pools alphabetically on one line: "death test
    /// difficulty 10, endurance 18/18, ..."); the Result screen gives the health gauge alone.
    #[test]
    fn pools_read_health_first_with_the_counters_apart() {
        let level = crate::rules::battle::tests::load("alternating_bridge.ron");
        let (b, _) = crate::rules::battle::BattleState::start(&level, 3);
        let u = &b.units[0];
        let (gauges, counters) = pool_parts(u);
        assert!(gauges.starts_with("health "), "{gauges}");
        assert!(
            gauges.contains("endurance") && !gauges.contains("death"),
            "{gauges}"
        );
        assert!(counters.starts_with("reactions left"), "{counters}");
        assert!(counters.contains("death test difficulty"), "{counters}");
        assert_eq!(health_gauge(u), format!("health {0}/{0}", u.stat("health")));
        assert_eq!(health_text(u), format!("{gauges}; {counters}"));
        // One pool: just it.
        let crypt = crate::rules::battle::tests::load("segments_crypt.ron");
        let (c, _) = crate::rules::battle::BattleState::start(&crypt, 3);
        assert!(health_text(&c.units[0]).starts_with("hp "));
        assert!(!health_text(&c.units[0]).contains(';'));
    }

    /// Two numbers of one blow at the same spot read one under the other; one elsewhere stays
    /// where it was wanted.
    #[test]
    fn floating_texts_of_one_blow_do_not_overlap() {
        let mut taken = Vec::new();
        let at = Vec2::new(100.0, 50.0);
        let a = float_place(at, 20.0, "-2 body", &mut taken);
        let b = float_place(at, 20.0, "-10 stun", &mut taken);
        let c = float_place(at, 20.0, "Down", &mut taken);
        assert_eq!(a, at);
        let box_of =
            |p: Vec2, t: &str| Rect::from_center_size(p, crate::game::labels::text_size(t, 20.0));
        let (ra, rb, rc) = (
            box_of(a, "-2 body"),
            box_of(b, "-10 stun"),
            box_of(c, "Down"),
        );
        for (x, y) in [(ra, rb), (ra, rc), (rb, rc)] {
            assert!(x.intersect(y).is_empty(), "{x:?} overlaps {y:?}");
        }
        assert!(b.y < a.y && c.y < b.y, "stacked downwards: {a} {b} {c}");
        let far = Vec2::new(400.0, 50.0);
        assert_eq!(float_place(far, 20.0, "-3", &mut taken), far);
    }
}
