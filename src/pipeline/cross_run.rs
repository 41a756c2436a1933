//! The pages that span every run (the index, the section pages, `runs.json`), written a unit
//! at a time: the first page (the newest runs, the counts, the charts and `data/runs.json`,
//! the list of shards) and each shard of `paging` (its index and section pages and its
//! `runs.json` shard). Each unit's runs' digests are read back (`Sources::load`: the digest
//! store, or the run's inputs), rendered, written and dropped, so a build holds one page of
//! digests in memory whatever the number of runs. Each unit has a key (the first page: the
//! cross-run key of every run; a shard: its runs' keys and cards); updating a site in place,
//! a unit whose key is the one recorded for the live site is not rendered at all, so adding
//! a run renders the first page and the run's shard only. Each shard also writes its runs'
//! case-level results as Parquet (`export::cases`), partitioned by month, so a build
//! rewrites only the partitions files of the shards whose runs changed. Uses `site`, `render` and `write`
//! (through `Staging`).

use crate::analysis::comparison::samples;
use crate::analysis::summarize::RunStatus;
use crate::export;
use crate::output::write::{OutputFile, Staging};
use crate::render;
use crate::site::digest::{self, RunCard, RunDigest};
use crate::site::paging::{Page, Paging};
use crate::site::section_pages::{SectionContext, MAX_CHART_RUNS};
use crate::site::sections::{self, Section};
use crate::site::{self, paths, runs_json};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};

/// What a unit of the cross-run pages was rendered from, and the files it wrote.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct UnitRecord {
    pub key: String,
    pub files: Vec<String>,
}

/// Every unit of the cross-run pages of a site, by name (`first`, or a shard's name).
pub(crate) type Units = BTreeMap<String, UnitRecord>;

/// Where the pages' inputs come from.
pub(crate) struct Sources<'a> {
    /// A run's digest, by id.
    pub load: &'a (dyn Fn(&str) -> anyhow::Result<RunDigest> + Sync),
    pub site_notes: Option<&'a str>,
    /// Each run's input key, and the key of the first page (with a cache; `None`: every
    /// unit is rendered and none recorded).
    pub keys: Option<(&'a HashMap<&'a str, String>, &'a str)>,
    /// The units of the live site being updated in place: one whose key is unchanged is
    /// carried as it is.
    pub live: Option<&'a Units>,
}

/// What `write` did.
pub(crate) struct Written {
    /// Files rendered (written, or found already there with the same bytes).
    pub files: usize,
    /// Every unit, as the new site has it.
    pub units: Units,
}

/// Writes every unit of the cross-run pages whose key changed (every unit without `live`).
pub(crate) fn write(
    mut cards: Vec<RunCard>,
    page_size: usize,
    sources: &Sources,
    staging: &Staging,
) -> anyhow::Result<Written> {
    digest::order(&mut cards);
    let paging = Paging::new(&cards, page_size);
    let load = sources.load;
    let mut units = Units::new();
    let mut files = 0;

    let first_key = sources.keys.map(|(_, first)| first.to_string());
    if let Some(record) = carried(sources, "first", first_key.as_deref()) {
        units.insert("first".to_string(), record);
    } else {
        let charted_digests = charted(&cards, load)?;
        let context = section_context(&cards, &paging, &charted_digests, sources.site_notes);
        let digests = load_window(&cards[paging.window(Page::First)], load)?;
        let mut out = render_page(&digests, &cards, Page::First, &context);
        out.push(OutputFile::new(paths::RUNS_JSON, runs_json::index_file(&paging, &cards)));
        files += out.len();
        units.insert("first".to_string(), put_unit(staging, first_key, out)?);
    }

    let no_charts = HashMap::new();
    let context = section_context(&cards, &paging, &no_charts, sources.site_notes);
    let shard_pages = paging.has_shard_pages();
    for (i, shard) in paging.shards.iter().enumerate() {
        let name = shard.name();
        let window = &cards[shard.window.clone()];
        let key = sources.keys.map(|(keys, _)| shard_key(&name, shard_pages, window, keys));
        if let Some(record) = carried(sources, &name, key.as_deref()) {
            units.insert(name, record);
            continue;
        }
        let digests = load_window(window, load)?;
        let mut out = if shard_pages { render_page(&digests, &cards, Page::Shard(i), &context) } else { Vec::new() };
        let refs: Vec<&RunDigest> = digests.iter().collect();
        out.push(OutputFile::new(paths::runs_json_shard(&name), runs_json::shard_file(shard, &refs)));
        out.push(case_file(&shard.month, window, &digests)?);
        files += out.len();
        units.insert(name, put_unit(staging, key, out)?);
    }

    // Units of the live site that are gone, and files a unit no longer has.
    if let Some(live) = sources.live {
        for (name, old) in live {
            let kept = units.get(name).map(|u| u.files.as_slice()).unwrap_or_default();
            for rel in old.files.iter().filter(|f| !kept.contains(f)) {
                staging.remove(rel)?;
            }
        }
    }
    Ok(Written { files, units })
}

/// The Parquet file of the case-level results of a shard's runs
/// (`data/cases/month=<month>/part-<hash of its bytes>.parquet`).
fn case_file(month: &str, window: &[RunCard], digests: &[RunDigest]) -> anyhow::Result<OutputFile> {
    let rows: Vec<export::cases::CaseRow> = window
        .iter()
        .zip(digests)
        .flat_map(|(card, digest)| {
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

/// The record of unit `name` of the live site when its key is `key`.
fn carried(sources: &Sources, name: &str, key: Option<&str>) -> Option<UnitRecord> {
    let record = sources.live?.get(name)?;
    (Some(record.key.as_str()) == key).then(|| record.clone())
}

/// Writes a unit's files; its record when it has a key.
fn put_unit(staging: &Staging, key: Option<String>, out: Vec<OutputFile>) -> anyhow::Result<UnitRecord> {
    out.par_iter().try_for_each(|file| staging.put(file))?;
    Ok(UnitRecord { key: key.unwrap_or_default(), files: out.into_iter().map(|f| f.path).collect() })
}

/// A shard's key: its name, whether it has pages, and each of its runs' id, input key and
/// card (status, verdict, configuration).
fn shard_key(name: &str, pages: bool, window: &[RunCard], keys: &HashMap<&str, String>) -> String {
    let mut hasher = xxhash_rust::xxh3::Xxh3::new();
    hasher.update(name.as_bytes());
    hasher.update(&[0, u8::from(pages)]);
    for card in window {
        hasher.update(keys.get(card.id.as_str()).map_or("-", String::as_str).as_bytes());
        hasher.update(&[0]);
        hasher.update(&serde_json::to_vec(card).expect("cards serialize"));
        hasher.update(&[0]);
    }
    format!("{:032x}", hasher.digest128())
}

/// The digests the first page's charts overlay: per section, the newest ok runs that have it.
fn charted<'a>(
    cards: &'a [RunCard],
    load: &(dyn Fn(&str) -> anyhow::Result<RunDigest> + Sync),
) -> anyhow::Result<HashMap<&'a str, RunDigest>> {
    let mut wanted: Vec<&str> = charted_ids(cards).iter().flatten().copied().collect();
    wanted.sort();
    wanted.dedup();
    wanted.par_iter().map(|id| Ok((*id, load(id)?))).collect()
}

/// Per section: the newest ok runs that have it (at most `MAX_CHART_RUNS`).
fn charted_ids(cards: &[RunCard]) -> [Vec<&str>; sections::COUNT] {
    let mut ids: [Vec<&str>; sections::COUNT] = Default::default();
    for card in cards.iter().filter(|c| c.status == RunStatus::Ok) {
        for (index, &section) in Section::ALL.iter().enumerate() {
            if card.has(section) && ids[index].len() < MAX_CHART_RUNS {
                ids[index].push(&card.id);
            }
        }
    }
    ids
}

/// The counts every first section page shows, and its charted runs (`charted`: empty for
/// shard pages, which chart nothing).
fn section_context<'a>(
    cards: &'a [RunCard],
    paging: &Paging,
    charted: &'a HashMap<&str, RunDigest>,
    site_notes: Option<&'a str>,
) -> SectionContext<'a> {
    let mut totals = [0; sections::COUNT];
    let mut ok_totals = [0; sections::COUNT];
    for card in cards {
        for (index, &section) in Section::ALL.iter().enumerate() {
            if card.has(section) {
                totals[index] += 1;
                ok_totals[index] += usize::from(card.status == RunStatus::Ok);
            }
        }
    }
    let ids = charted_ids(cards);
    SectionContext {
        paging: paging.clone(),
        totals,
        ok_totals,
        charted: std::array::from_fn(|i| ids[i].iter().filter_map(|id| charted.get(id)).collect()),
        site_notes,
    }
}

/// The digests of a page's runs, in its order.
fn load_window(
    window: &[RunCard],
    load: &(dyn Fn(&str) -> anyhow::Result<RunDigest> + Sync),
) -> anyhow::Result<Vec<RunDigest>> {
    window.par_iter().map(|card| load(&card.id)).collect()
}

/// The rendered index and section pages (with charts) of one page of runs (`digests`, in
/// the page's order; `cards`: every run, newest first).
fn render_page(digests: &[RunDigest], cards: &[RunCard], page: Page, context: &SectionContext) -> Vec<OutputFile> {
    let window = &cards[context.paging.window(page)];
    let refs: Vec<&RunDigest> = digests.iter().collect();
    let model = site::cross_run(&refs, window, cards, page, context);
    render::cross_run_files(&model)
}
