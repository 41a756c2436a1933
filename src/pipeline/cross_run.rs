//! The pages that span every run (the index, the section pages, `runs.json`), written a unit
//! at a time: the first page (the newest runs, the counts, `data/runs.json`, the list of
//! shards) and each shard of `paging` (its index and section pages and its `runs.json`
//! shard). Each section charts one panel per configuration, on the page that lists the
//! configuration's newest ok run (`section_pages::Panel`). Each unit's runs' digests are read
//! back (`Sources::load`: the digest store, or the run's inputs), rendered, written and
//! dropped, so a build holds the first page's digests, a group of shards' and the runs their
//! panels draw in memory whatever the number of runs. Updating a site in place, the first
//! page's are read once and shared with the panels and shards that draw the same runs (adding
//! a run writes the first page and the newest shard, whose runs the first page mostly holds). Each unit has a key (the first page: the cross-run key of
//! every run; a shard: its runs' keys and cards and the panels drawn on it); updating a site
//! in place, a unit whose key is the one recorded for the live site, and whose files all still
//! have the stamps recorded when they were committed, is not rendered at all, so adding a run
//! renders the first page, the run's shard and the shard a panel left only. Each shard also
//! writes its runs' case-level results as Parquet (`export::cases`), partitioned by month, so
//! a build rewrites only the partition files of the shards whose runs changed.
//! Uses `site`, `render` and `write` (through `Staging`).

use crate::analysis::comparison::samples;
use crate::analysis::overview::RunOverview;
use crate::analysis::summarize::RunStatus;
use crate::export;
use crate::ingest::find::FileStamp;
use crate::pipeline::write::Staging;
use crate::render::{self, OutputFile};
use crate::site::card::{self, RunCard};
use crate::site::paging::{Page, Paging};
use crate::site::section_pages::{Panel, SectionContext, CHART_RUNS};
use crate::site::sections::{self, Section};
use crate::site::{self, paths, runs_json};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;
use std::sync::Arc;

/// What a unit of the cross-run pages (or of the history pages: `histories::write`) was
/// rendered from, and the files it wrote.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct UnitRecord {
    pub key: String,
    pub files: Vec<String>,
    /// The stamps of `files`, in order, in the site as committed (`stamp`; empty until then):
    /// updating in place, a unit is carried only while each of its files has its stamp, so
    /// one deleted or edited by hand is written again.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stamps: Vec<FileStamp>,
    /// A configuration's history unit: what its page gave the regressions page
    /// (`histories::write`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub history: Option<crate::site::history_view::Gives>,
}

impl UnitRecord {
    /// A unit just written: not stamped until its site is committed.
    pub(crate) fn new(key: String, files: Vec<String>, history: Option<crate::site::history_view::Gives>) -> Self {
        UnitRecord { key, files, stamps: Vec::new(), history }
    }

    /// Whether each of the unit's files lies in `staging` (the live site, updated in place)
    /// with the stamp recorded when it was committed.
    pub(crate) fn intact(&self, staging: &Staging) -> bool {
        self.stamps.len() == self.files.len()
            && self.files.iter().zip(&self.stamps).all(|(rel, stamp)| staging.stamp(rel) == Some(*stamp))
    }
}

/// Records the stamps of every unit's files as they lie in `site`, just committed; a unit with
/// a file that is not there as a plain file is left unstamped (so written again next time).
pub(crate) fn stamp(units: &mut Units, site: &Path) {
    for unit in units.values_mut() {
        unit.stamps = unit
            .files
            .iter()
            .map(|rel| FileStamp::of_plain_file(&site.join(rel)))
            .collect::<Option<Vec<_>>>()
            .unwrap_or_default();
    }
}

/// Every unit of the cross-run pages of a site, by name (`first`, or a shard's name).
pub(crate) type Units = BTreeMap<String, UnitRecord>;

/// Where the pages' inputs come from.
pub(crate) struct Sources<'a> {
    /// A run's digest, by id.
    pub load: &'a (dyn Fn(&str) -> anyhow::Result<RunOverview> + Sync),
    pub site_notes: &'a crate::site::notes::SiteNotes,
    /// Each run's input key, and the key of the first page (with a cache; `None`: every
    /// unit is rendered and none recorded).
    pub keys: Option<(&'a HashMap<&'a str, String>, &'a str)>,
    /// The units of the live site being updated in place: one whose key is unchanged is
    /// carried as it is.
    pub live: Option<&'a Units>,
}

/// What `write` did: every unit, as the new site has it.
pub(crate) struct Written {
    pub units: Units,
}

/// A configuration's panel while cards are counted: its page, its ok runs, its key text and
/// the ids it draws.
type PanelIds<'a> = (Page, usize, Arc<str>, Vec<&'a str>);

/// Per section: how many runs have it, and its panels (`PanelIds`), in order of each
/// configuration's newest ok run.
type SectionCounts<'a> = ([usize; sections::COUNT], [Vec<PanelIds<'a>>; sections::COUNT]);

/// Writes every unit of the cross-run pages whose key changed (every unit without `live`).
pub(crate) fn write(
    mut cards: Vec<RunCard>,
    page_size: usize,
    sources: &Sources,
    staging: &Staging,
) -> anyhow::Result<Written> {
    card::order(&mut cards);
    let paging = Paging::new(&cards, page_size);
    let load = sources.load;
    let (totals, panels) = count_sections(&cards, &paging);
    let mut units = Units::new();

    let first_key = sources.keys.map(|(_, first)| first.to_string());
    let first_carried = carried(sources, staging, "first", first_key.as_deref());
    // The first page's runs are the newest: the newest month's shard and most panels draw
    // them too. Updating a site in place (adding runs), the first page is written with one or
    // two shards, so its runs' digests are read once, before it and the shards, and shared.
    // A build of a whole site writes every shard, group after group: there the first page
    // reads its own and drops them when written (holding them across every group took a
    // one-thread build of 200 runs from 37 to 46 MB of peak memory, for no time saved).
    let first_window = &cards[paging.window(Page::First)];
    let newest: Shared = match (&first_carried, sources.live) {
        (Some(_), _) | (None, None) => Shared::new(),
        (None, Some(_)) => first_window
            .par_iter()
            .map(|card| Ok((card.id.as_str(), Arc::new(load(&card.id)?))))
            .collect::<anyhow::Result<_>>()?,
    };
    let write_first = || -> anyhow::Result<UnitRecord> {
        if let Some(record) = first_carried {
            return Ok(record);
        }
        // The first page charts its own panels and names the pages of every other one.
        let charted = panel_digests(&panels, &|_| true, &newest, load)?;
        let context = section_context(&paging, totals, &panels, &|_| true, &charted, sources.site_notes);
        let digests = load_window(first_window, &newest, load)?;
        let mut out = render_page(&digests, &cards, Page::First, &context);
        out.push(OutputFile::new(paths::RUNS_JSON, runs_json::index_file(&paging, &cards)));
        put_unit(staging, first_key, out)
    };

    // The shards (a month of runs each: its pages, runs.json shard and Parquet file) in
    // parallel, in groups of consecutive shards holding at most `SHARD_GROUP_RUNS` runs (or
    // one larger shard): a shard holds its runs' digests while it is written, so memory stays
    // bounded by the group, not by the history.
    let shard_pages = paging.has_shard_pages();
    let write_shard = |i: usize| -> anyhow::Result<(String, UnitRecord)> {
        let shard = &paging.shards[i];
        let name = shard.name();
        let page = Page::Shard(i);
        let here = |p: &PanelIds| p.0 == page;
        let window = &cards[shard.window.clone()];
        let key = sources.keys.map(|(keys, _)| shard_key(&name, shard_pages, window, &panels, page, keys));
        if let Some(record) = carried(sources, staging, &name, key.as_deref()) {
            return Ok((name, record));
        }
        let digests = load_window(window, &newest, load)?;
        // The pages beside the runs.json shard and the Parquet file: the largest shard is
        // the cross-run stage's longest task in a build on many threads.
        let (pages, data) = rayon::join(
            || -> anyhow::Result<Vec<OutputFile>> {
                if !shard_pages {
                    return Ok(Vec::new());
                }
                let charted = panel_digests(&panels, &here, &newest, load)?;
                let context = section_context(&paging, totals, &panels, &here, &charted, sources.site_notes);
                Ok(render_page(&digests, &cards, page, &context))
            },
            || -> anyhow::Result<[OutputFile; 2]> {
                let refs: Vec<&RunOverview> = digests.iter().map(|d| &**d).collect();
                let json = OutputFile::new(paths::runs_json_shard(&name), runs_json::shard_file(shard, &refs));
                Ok([json, case_file(&shard.month, window, &digests)?])
            },
        );
        let mut out = pages?;
        out.extend(data?);
        Ok((name, put_unit(staging, key, out)?))
    };
    let write_shards = || -> anyhow::Result<Vec<(String, UnitRecord)>> {
        let mut written = Vec::new();
        for group in super::groups::within(SHARD_GROUP_RUNS, paging.shards.iter().map(|s| s.window.len())) {
            let group: Vec<(String, UnitRecord)> =
                group.into_par_iter().map(write_shard).collect::<anyhow::Result<_>>()?;
            written.extend(group);
        }
        Ok(written)
    };
    // The first page beside the shards: adding a run writes the first page and the run's
    // shard, each a few tens of milliseconds, and neither waits for the other (memory: the
    // first page's window of digests, `newest`, beside a group's).
    let (first, shards) = rayon::join(write_first, write_shards);
    units.insert("first".to_string(), first?);
    units.extend(shards?);

    // (A chart whose panel moved to another page is kept: that page's unit has it now.)
    if let Some(live) = sources.live {
        remove_stale(&units, live, staging)?;
    }
    Ok(Written { units })
}

/// Updating a site in place: removes the files of the live site's units (`live`) that no unit
/// of the new site (`units`) has (a unit gone, or a file its unit no longer writes), and the
/// folders that leaves empty (a month's last shard gone). Used for the cross-run units and
/// for the history units (`histories::write`).
pub(super) fn remove_stale(units: &Units, live: &Units, staging: &Staging) -> anyhow::Result<()> {
    let kept: HashSet<&str> = units.values().flat_map(|u| u.files.iter().map(String::as_str)).collect();
    staging.remove_files(live.values().flat_map(|u| &u.files).filter(|rel| !kept.contains(rel.as_str())))?;
    Ok(())
}

/// Runs whose digests the shards written at once may hold together (a parsed digest of a
/// small run takes about 150 KB).
const SHARD_GROUP_RUNS: usize = 500;

/// Per section: how many runs have it, and every configuration with ok runs in it: the page
/// its newest ok run is on, how many ok runs it has, and the newest of them (up to
/// `CHART_RUNS`) that its panel draws.
fn count_sections<'a>(cards: &'a [RunCard], paging: &Paging) -> SectionCounts<'a> {
    let mut totals = [0; sections::COUNT];
    let mut panels: [Vec<PanelIds>; sections::COUNT] = Default::default();
    for (position, card) in cards.iter().enumerate() {
        for (index, &section) in Section::ALL.iter().enumerate() {
            if !card.has(section) {
                continue;
            }
            totals[index] += 1;
            if card.status != RunStatus::Ok {
                continue;
            }
            match panels[index].iter_mut().find(|(_, _, key, _)| *key == card.configuration_key) {
                Some((_, total, _, ids)) => {
                    *total += 1;
                    if ids.len() < CHART_RUNS {
                        ids.push(&card.id);
                    }
                }
                None => {
                    panels[index].push((paging.page_of(position), 1, card.configuration_key.clone(), vec![&card.id]))
                }
            }
        }
    }
    (totals, panels)
}

/// The digests the panels chosen by `wanted` draw, by id.
fn panel_digests<'a>(
    panels: &[Vec<PanelIds<'a>>; sections::COUNT],
    wanted: &dyn Fn(&PanelIds) -> bool,
    newest: &Shared,
    load: &(dyn Fn(&str) -> anyhow::Result<RunOverview> + Sync),
) -> anyhow::Result<HashMap<&'a str, Arc<RunOverview>>> {
    let mut ids: Vec<&str> =
        panels.iter().flatten().filter(|p| wanted(p)).flat_map(|(_, _, _, ids)| ids.iter().copied()).collect();
    ids.sort();
    ids.dedup();
    ids.par_iter().map(|id| Ok((*id, shared_or_loaded(id, newest, load)?))).collect()
}

/// The digests of the first page's runs, read once (`write`), by run id.
type Shared<'a> = HashMap<&'a str, Arc<RunOverview>>;

/// A run's digest: the one already read (`newest`), else read now.
fn shared_or_loaded(
    id: &str,
    newest: &Shared,
    load: &(dyn Fn(&str) -> anyhow::Result<RunOverview> + Sync),
) -> anyhow::Result<Arc<RunOverview>> {
    match newest.get(id) {
        Some(digest) => Ok(Arc::clone(digest)),
        None => Ok(Arc::new(load(id)?)),
    }
}

/// What the section pages of a page need: the counts and the panels chosen by `wanted`
/// (every panel on the first page; a shard page's own panels only).
fn section_context<'a>(
    paging: &'a Paging,
    totals: [usize; sections::COUNT],
    panels: &[Vec<PanelIds>; sections::COUNT],
    wanted: &dyn Fn(&PanelIds) -> bool,
    charted: &'a HashMap<&str, Arc<RunOverview>>,
    site_notes: &'a crate::site::notes::SiteNotes,
) -> SectionContext<'a> {
    SectionContext {
        paging,
        totals,
        panels: std::array::from_fn(|index| {
            panels[index]
                .iter()
                .filter(|p| wanted(p))
                .map(|(page, ok_runs, _, ids)| Panel {
                    page: *page,
                    ok_runs: *ok_runs,
                    runs: ids.iter().map(|id| &*charted[*id]).collect(),
                })
                .collect()
        }),
        site_notes,
    }
}

/// The Parquet file of the case-level results of a shard's runs
/// (`data/cases/month=<month>/part-<hash of its bytes>.parquet`).
fn case_file(month: &str, window: &[RunCard], digests: &[Arc<RunOverview>]) -> anyhow::Result<OutputFile> {
    let rows: Vec<export::cases::CaseRow> = window
        .par_iter()
        .zip(digests)
        .flat_map_iter(|(card, digest)| {
            samples::of(&digest.sections)
                .iter()
                .map(|case| export::cases::row(&card.id, &card.configuration_key, case, &digest.case_verdicts))
                .collect::<Vec<_>>()
        })
        .collect();
    let bytes = export::cases::write(&rows)?;
    let hash = xxhash_rust::xxh3::xxh3_64(&bytes);
    Ok(OutputFile::new(paths::cases_file(month, &format!("{hash:016x}")), bytes))
}

/// The record of unit `name` of the live site when its key is `key` and its files all lie
/// there as committed (one deleted or edited by hand is written again).
fn carried(sources: &Sources, staging: &Staging, name: &str, key: Option<&str>) -> Option<UnitRecord> {
    let record = sources.live?.get(name)?;
    (Some(record.key.as_str()) == key && record.intact(staging)).then(|| record.clone())
}

/// Writes a unit's files; its record when it has a key.
fn put_unit(staging: &Staging, key: Option<String>, out: Vec<OutputFile>) -> anyhow::Result<UnitRecord> {
    out.par_iter().try_for_each(|file| staging.put(file))?;
    Ok(UnitRecord::new(key.unwrap_or_default(), out.into_iter().map(|f| f.path).collect(), None))
}

/// A shard's key: its name, whether it has pages, each of its runs' id, input key and card
/// (status, verdict, configuration), and the panels drawn on it (section, configuration, ok
/// runs, and the input keys of the runs drawn).
fn shard_key(
    name: &str,
    pages: bool,
    window: &[RunCard],
    panels: &[Vec<PanelIds>; sections::COUNT],
    page: Page,
    keys: &HashMap<&str, String>,
) -> String {
    let mut hasher = xxhash_rust::xxh3::Xxh3::new();
    let key_of = |id: &str| keys.get(id).map_or("-", String::as_str).to_string();
    hasher.update(name.as_bytes());
    hasher.update(&[0, u8::from(pages)]);
    for card in window {
        hasher.update(key_of(&card.id).as_bytes());
        hasher.update(&[0]);
        hasher.update(&serde_json::to_vec(card).expect("cards serialize"));
        hasher.update(&[0]);
    }
    for (index, list) in panels.iter().enumerate() {
        for (_, ok_runs, configuration, ids) in list.iter().filter(|p| p.0 == page) {
            hasher.update(format!("panel {index} {ok_runs} {configuration}").as_bytes());
            for id in ids {
                hasher.update(&[0]);
                hasher.update(id.as_bytes());
                hasher.update(&[0]);
                hasher.update(key_of(id).as_bytes());
            }
            hasher.update(&[1]);
        }
    }
    format!("{:032x}", hasher.digest128())
}

/// The digests of a page's runs, in its order.
fn load_window(
    window: &[RunCard],
    newest: &Shared,
    load: &(dyn Fn(&str) -> anyhow::Result<RunOverview> + Sync),
) -> anyhow::Result<Vec<Arc<RunOverview>>> {
    window.par_iter().map(|card| shared_or_loaded(&card.id, newest, load)).collect()
}

/// The rendered index and section pages (with charts) of one page of runs (`digests`, in
/// the page's order; `cards`: every run, newest first).
fn render_page(
    digests: &[Arc<RunOverview>],
    cards: &[RunCard],
    page: Page,
    context: &SectionContext,
) -> Vec<OutputFile> {
    let window = &cards[context.paging.window(page)];
    let refs: Vec<&RunOverview> = digests.iter().map(|d| &**d).collect();
    let model = site::cross_run(&refs, window, cards, page, context);
    render::cross_run_files(&model)
}
