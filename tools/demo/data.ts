// The demo catalog of "Casa Brasil", a Brazilian home-goods store: plain data, every record with
// a stable code (key, name), references by code. The products are generated deterministically
// from the lists below (the same 229 every run). The loader (loader.ts) turns codes into ids.

/** A text in Portuguese (Brazil) and English. */
export type Translate = Record<string, string>;
const t = (pt: string, en: string): Translate => ({ 'pt-BR': pt, en });

/** Tag on every demo record that has tags, so `?tags=demo` finds them. */
export const DEMO_TAG = 'demo';
/** The users groups' `source_id`. */
export const DEMO_SOURCE = 'demo';

// ---------------------------------------------------------------------------------------------
// People, users groups, catalogs

/** Users of the demo (ids as an identity provider would give them). */
export const USERS = {
  ana: { id: '6740de000000000000000001', name: 'Ana Souza' },
  bruno: { id: '6740de000000000000000002', name: 'Bruno Lima' },
  carla: { id: '6740de000000000000000003', name: 'Carla Mendes' },
  diego: { id: '6740de000000000000000004', name: 'Diego Rocha' },
  elisa: { id: '6740de000000000000000005', name: 'Elisa Santos' },
};

export interface DemoUsersGroup {
  name: string;
  description: string;
  has_full_product_access: boolean;
  users: { id: string; name: string; roles: string[] }[];
}

export const USERS_GROUPS: DemoUsersGroup[] = [
  {
    name: 'Compradores',
    description: 'Compradores da Casa Brasil: cuidam do sortimento e dos preços',
    has_full_product_access: false,
    users: [
      { ...USERS.ana, roles: ['buyer'] },
      { ...USERS.bruno, roles: ['buyer'] },
    ],
  },
  {
    name: 'Aprovadores de catálogo',
    description: 'Aprovam kits e mudanças de produtos antes de irem para a loja',
    has_full_product_access: true,
    users: [
      { ...USERS.ana, roles: ['approver'] },
      { ...USERS.bruno, roles: ['approver'] },
      { ...USERS.carla, roles: ['approver', 'catalog_owner'] },
    ],
  },
  {
    name: 'Atendimento',
    description: 'Atendimento ao cliente: acompanha pedidos e devoluções',
    has_full_product_access: true,
    users: [
      { ...USERS.diego, roles: ['support'] },
      { ...USERS.elisa, roles: ['support', 'supervisor'] },
    ],
  },
];

export interface DemoCatalogRecord {
  code: string;
  name: Translate;
  description: Translate;
  /** Users groups by name. */
  user_groups: string[];
}

export const CATALOGS: DemoCatalogRecord[] = [
  {
    code: 'loja-online',
    name: t('Loja online', 'Online store'),
    description: t('Produtos vendidos no site e no aplicativo', 'Products sold on the website and the app'),
    user_groups: ['Compradores'],
  },
];

// ---------------------------------------------------------------------------------------------
// Attributes: groups, one attribute of each of the 14 types, options

export interface DemoAttributeGroup {
  key: string;
  name: Translate;
  description: Translate;
  sequence: number;
}

export const ATTRIBUTE_GROUPS: DemoAttributeGroup[] = [
  {
    key: 'especificacoes',
    name: t('Especificações', 'Specifications'),
    description: t('Medidas, materiais e características', 'Sizes, materials and features'),
    sequence: 1,
  },
  {
    key: 'comercial',
    name: t('Comercial', 'Commercial'),
    description: t('Preço, lançamento e atendimento', 'Price, launch and customer service'),
    sequence: 2,
  },
  {
    key: 'midia',
    name: t('Mídia', 'Media'),
    description: t('Imagens, manuais e fichas técnicas', 'Images, manuals and data sheets'),
    sequence: 3,
  },
  {
    key: 'conteudo',
    name: t('Conteúdo', 'Content'),
    description: t('Textos para o cliente', 'Texts for the customer'),
    sequence: 4,
  },
];

export interface DemoOption {
  value: string;
  label: Translate;
}

export interface DemoAttribute {
  key: string;
  name: Translate;
  description: Translate;
  type: string;
  type_config?: Record<string, unknown>;
  association: 'sku' | 'product' | 'product_and_sku';
  required?: boolean;
  sequence: number;
  /** Attribute groups by key. */
  groups: string[];
  /** For select and multiselect. */
  options?: DemoOption[];
}

const COLORS: DemoOption[] = [
  { value: 'branco', label: t('Branco', 'White') },
  { value: 'preto', label: t('Preto', 'Black') },
  { value: 'cinza', label: t('Cinza', 'Grey') },
  { value: 'azul', label: t('Azul', 'Blue') },
  { value: 'verde', label: t('Verde', 'Green') },
  { value: 'vermelho', label: t('Vermelho', 'Red') },
  { value: 'bege', label: t('Bege', 'Beige') },
  { value: 'inox', label: t('Inox', 'Stainless steel') },
  { value: 'madeira', label: t('Madeira', 'Wood') },
];

const ROOMS: DemoOption[] = [
  { value: 'cozinha', label: t('Cozinha', 'Kitchen') },
  { value: 'sala', label: t('Sala', 'Living room') },
  { value: 'quarto', label: t('Quarto', 'Bedroom') },
  { value: 'banheiro', label: t('Banheiro', 'Bathroom') },
  { value: 'escritorio', label: t('Escritório', 'Home office') },
  { value: 'area-externa', label: t('Área externa', 'Outdoor') },
];

/** Exactly one attribute of each of the 14 types, with a type_config each type accepts. */
export const ATTRIBUTES: DemoAttribute[] = [
  {
    key: 'material',
    name: t('Material', 'Material'),
    description: t('Material principal', 'Main material'),
    type: 'text',
    type_config: { max_length: 80 },
    association: 'product_and_sku',
    sequence: 1,
    groups: ['especificacoes'],
  },
  {
    key: 'cuidados',
    name: t('Cuidados', 'Care instructions'),
    description: t('Como limpar e conservar', 'How to clean and look after it'),
    type: 'textarea',
    type_config: { localizable: true, max_length: 2000 },
    association: 'product',
    sequence: 2,
    groups: ['conteudo'],
  },
  {
    key: 'garantia_meses',
    name: t('Garantia (meses)', 'Warranty (months)'),
    description: t('Garantia do fabricante', "Manufacturer's warranty"),
    type: 'number',
    type_config: { type: 'integer', min: 0, max: 120 },
    association: 'product',
    sequence: 3,
    groups: ['especificacoes'],
  },
  {
    key: 'lava_loucas',
    name: t('Pode ir à lava-louças', 'Dishwasher safe'),
    description: t('Resiste à lava-louças', 'Survives the dishwasher'),
    type: 'boolean',
    association: 'product',
    sequence: 4,
    groups: ['especificacoes'],
  },
  {
    key: 'lancamento',
    name: t('Data de lançamento', 'Launch date'),
    description: t('Quando o produto chegou à loja', 'When the product reached the store'),
    type: 'date',
    type_config: { min: '2015-01-01' },
    association: 'product',
    sequence: 5,
    groups: ['comercial'],
  },
  {
    key: 'disponivel_em',
    name: t('Disponível a partir de', 'Available from'),
    description: t('Início das vendas (UTC)', 'Start of sales (UTC)'),
    type: 'datetime',
    association: 'product',
    sequence: 6,
    groups: ['comercial'],
  },
  {
    key: 'cor',
    name: t('Cor', 'Colour'),
    description: t('Cor predominante', 'Main colour'),
    type: 'select',
    association: 'product_and_sku',
    sequence: 7,
    groups: ['especificacoes'],
    options: COLORS,
  },
  {
    key: 'ambientes',
    name: t('Ambientes', 'Rooms'),
    description: t('Onde o produto é usado', 'Where the product is used'),
    type: 'multiselect',
    association: 'product',
    sequence: 8,
    groups: ['especificacoes'],
    options: ROOMS,
  },
  {
    key: 'preco',
    name: t('Preço', 'Price'),
    description: t('Preço de venda', 'Selling price'),
    type: 'price',
    type_config: { currencies: ['BRL'] },
    association: 'product_and_sku',
    required: true,
    sequence: 9,
    groups: ['comercial'],
  },
  {
    key: 'peso',
    name: t('Peso', 'Weight'),
    description: t('Peso com embalagem', 'Weight with packaging'),
    type: 'metric',
    type_config: { units: ['kg', 'g'] },
    association: 'product_and_sku',
    sequence: 10,
    groups: ['especificacoes'],
  },
  {
    key: 'manual_url',
    name: t('Manual', 'Manual'),
    description: t('Manual de instruções', 'Instruction manual'),
    type: 'url',
    association: 'product',
    sequence: 11,
    groups: ['midia'],
  },
  {
    key: 'sac_email',
    name: t('E-mail do SAC', 'Customer service e-mail'),
    description: t('Atendimento do fabricante', "Manufacturer's customer service"),
    type: 'email',
    association: 'product',
    sequence: 12,
    groups: ['comercial'],
  },
  {
    key: 'imagem_ambiente',
    name: t('Foto no ambiente', 'Room photo'),
    description: t('O produto decorando um ambiente', 'The product in a furnished room'),
    type: 'image',
    association: 'product',
    sequence: 13,
    groups: ['midia'],
  },
  {
    key: 'ficha_tecnica',
    name: t('Ficha técnica', 'Data sheet'),
    description: t('PDF com as especificações', 'PDF with the specifications'),
    type: 'file',
    association: 'product',
    sequence: 14,
    groups: ['midia'],
  },
];

// ---------------------------------------------------------------------------------------------
// Taxonomy: brands, the category tree, families

export interface DemoBrand {
  code: string;
  name: string;
  description: Translate;
  /** The brand's customer service (the products' sac_email). */
  email: string;
}

// prettier-ignore
export const BRANDS: DemoBrand[] = [
  ['aurora', 'Aurora Utilidades', 'Panelas e utensílios desde 1962', 'Cookware and utensils since 1962'],
  ['ipe', 'Ipê Casa', 'Utilidades domésticas de Minas Gerais', 'Housewares from Minas Gerais'],
  ['inox-sul', 'Inox do Sul', 'Aço inox gaúcho', 'Stainless steel from Rio Grande do Sul'],
  ['ceramica-cunha', 'Cerâmica Cunha', 'Louças feitas à mão no Vale do Paraíba', 'Handmade ceramics from the Paraíba Valley'],
  ['algodao-norte', 'Algodão do Norte', 'Cama e banho em algodão nordestino', 'Bed and bath in north-eastern cotton'],
  ['lar-paulista', 'Lar Paulista', 'Têxteis para o lar', 'Home textiles'],
  ['serra-gaucha', 'Serra Gaúcha Móveis', 'Móveis de Bento Gonçalves', 'Furniture from Bento Gonçalves'],
  ['jequitiba', 'Jequitibá Design', 'Móveis e decoração de autor', 'Designer furniture and decor'],
  ['vento-sul', 'Vento Sul Eletro', 'Eletroportáteis', 'Small appliances'],
  ['luz-bahia', 'Luz da Bahia', 'Iluminação e decoração', 'Lighting and decor'],
  ['brasa-forte', 'Brasa Forte', 'Churrasqueiras e acessórios', 'Barbecue grills and tools'],
].map(([code, name, pt, en]) => ({ code, name, description: t(pt, en), email: `sac@${code}.example.com` }));

export interface DemoTree {
  code: string;
  name: Translate;
  description: Translate;
}

export const CATEGORY_TREES: DemoTree[] = [
  {
    code: 'departamentos',
    name: t('Departamentos', 'Departments'),
    description: t('A navegação da loja', "The store's navigation"),
  },
];

export interface DemoCategory {
  code: string;
  name: Translate;
  tree: string;
  /** Parent category by code (listed before its children). */
  parent?: string;
}

const cat = (code: string, pt: string, en: string, parent?: string): DemoCategory => ({
  code,
  name: t(pt, en),
  tree: 'departamentos',
  ...(parent ? { parent } : {}),
});

/** Three levels, parents first. */
export const CATEGORIES: DemoCategory[] = [
  cat('cozinha', 'Cozinha', 'Kitchen'),
  cat('cama-mesa-banho', 'Cama, mesa e banho', 'Bed, table and bath'),
  cat('moveis', 'Móveis', 'Furniture'),
  cat('decoracao', 'Decoração', 'Decor'),
  cat('eletroportateis', 'Eletroportáteis', 'Small appliances'),
  cat('area-externa', 'Área externa', 'Outdoor'),
  cat('servicos', 'Serviços', 'Services'),
  cat('cozinha-panelas', 'Panelas', 'Cookware', 'cozinha'),
  cat('cozinha-utensilios', 'Utensílios', 'Utensils', 'cozinha'),
  cat('cozinha-loucas', 'Louças e copos', 'Dinnerware and glasses', 'cozinha'),
  cat('cama', 'Cama', 'Bedding', 'cama-mesa-banho'),
  cat('banho', 'Banho', 'Bath', 'cama-mesa-banho'),
  cat('mesa', 'Mesa', 'Table linen', 'cama-mesa-banho'),
  cat('moveis-sala', 'Sala de estar', 'Living room', 'moveis'),
  cat('moveis-quarto', 'Quarto', 'Bedroom', 'moveis'),
  cat('moveis-escritorio', 'Escritório', 'Home office', 'moveis'),
  cat('decoracao-vasos', 'Vasos', 'Vases', 'decoracao'),
  cat('decoracao-iluminacao', 'Iluminação', 'Lighting', 'decoracao'),
  cat('decoracao-quadros', 'Quadros', 'Wall art', 'decoracao'),
  cat('eletro-cafe', 'Café', 'Coffee', 'eletroportateis'),
  cat('eletro-preparo', 'Preparo de alimentos', 'Food preparation', 'eletroportateis'),
  cat('eletro-limpeza', 'Limpeza', 'Cleaning', 'eletroportateis'),
  cat('area-externa-churrasco', 'Churrasco', 'Barbecue', 'area-externa'),
  cat('area-externa-descanso', 'Descanso', 'Lounging', 'area-externa'),
  cat('area-externa-jardim', 'Jardim', 'Garden', 'area-externa'),
  cat('servicos-montagem', 'Montagem', 'Assembly', 'servicos'),
  cat('servicos-instalacao', 'Instalação', 'Installation', 'servicos'),
  cat('servicos-garantia', 'Garantia estendida', 'Extended warranty', 'servicos'),
  cat('panelas-antiaderentes', 'Antiaderentes', 'Non-stick', 'cozinha-panelas'),
  cat('panelas-inox', 'Inox', 'Stainless steel', 'cozinha-panelas'),
  cat('panelas-pressao', 'Panelas de pressão', 'Pressure cookers', 'cozinha-panelas'),
  cat('cama-lencois', 'Lençóis', 'Sheets', 'cama'),
  cat('cama-travesseiros', 'Travesseiros', 'Pillows', 'cama'),
];

export interface DemoFamily {
  code: string;
  name: Translate;
  /** Attribute groups by key: their attributes apply to the family's products. */
  attribute_groups: string[];
}

const ALL_GROUPS = ATTRIBUTE_GROUPS.map((g) => g.key);
export const FAMILIES: DemoFamily[] = [
  { code: 'utensilios-cozinha', name: t('Utensílios de cozinha', 'Kitchenware'), attribute_groups: ALL_GROUPS },
  { code: 'textil-casa', name: t('Têxteis para casa', 'Home textiles'), attribute_groups: ALL_GROUPS },
  { code: 'moveis', name: t('Móveis', 'Furniture'), attribute_groups: ALL_GROUPS },
  { code: 'decoracao', name: t('Decoração', 'Decor'), attribute_groups: ALL_GROUPS },
  { code: 'eletroportateis', name: t('Eletroportáteis', 'Small appliances'), attribute_groups: ALL_GROUPS },
  { code: 'area-externa', name: t('Área externa', 'Outdoor'), attribute_groups: ALL_GROUPS },
  { code: 'kits', name: t('Kits', 'Bundles'), attribute_groups: ['comercial', 'midia', 'conteudo'] },
  { code: 'servicos', name: t('Serviços', 'Services'), attribute_groups: ['comercial', 'conteudo'] },
];

// ---------------------------------------------------------------------------------------------
// Products

/** A product to write, references by code (family, brand, categories, parent). */
export interface DemoProduct {
  code: string;
  type: 'simple' | 'variation' | 'kit' | 'service';
  name: Translate;
  description: Translate;
  family: string;
  brand?: string;
  categories: string[];
  /** The parent of a variation, by code. */
  parent?: string;
  enabled: boolean;
  tags: string[];
  image: string;
  attributes: Record<string, unknown>;
}

interface Size {
  pt: string;
  en: string;
  /** Price and weight factor. */
  f: number;
}
const size = (pt: string, f: number, en = pt): Size => ({ pt, en, f });

/** A product line: every size of it from each of its brands is a product. */
interface Line {
  prefix: string;
  pt: string;
  en: string;
  category: string;
  family: string;
  brands: string[];
  sizes: Size[];
  colors: string[];
  material: string;
  price: number;
  /** Weight in kg at factor 1 (below 1 kg written in g). */
  kg: number;
  warranty: number;
  rooms: string[];
  care: Translate;
  dishwasher?: boolean;
  /** Appliances have a manual. */
  manual?: boolean;
}

const CARE = {
  panela: t(
    'Lave com esponja macia e detergente neutro. Não use palha de aço.',
    'Wash with a soft sponge and mild detergent. Do not use steel wool.',
  ),
  louca: t('Pode ir ao micro-ondas e à lava-louças.', 'Microwave and dishwasher safe.'),
  tecido: t(
    'Lave à máquina em água fria, não use alvejante, seque à sombra.',
    'Machine wash cold, no bleach, dry in the shade.',
  ),
  movel: t('Limpe com pano úmido e seque em seguida.', 'Wipe with a damp cloth and dry straight away.'),
  decor: t('Tire o pó com pano seco.', 'Dust with a dry cloth.'),
  eletro: t(
    'Desligue da tomada antes de limpar; não mergulhe a base em água.',
    'Unplug before cleaning; never put the base in water.',
  ),
};

const V = [size('127 V', 1), size('220 V', 1.02)];
// prettier-ignore
const LINES: Line[] = [
  // Kitchen
  { prefix: 'FRI', pt: 'Frigideira antiaderente', en: 'Non-stick frying pan', category: 'panelas-antiaderentes', family: 'utensilios-cozinha', brands: ['aurora', 'ipe'], sizes: [size('20 cm', 1), size('24 cm', 1.25), size('28 cm', 1.55)], colors: ['preto', 'vermelho', 'cinza'], material: 'Alumínio com revestimento cerâmico', price: 89.9, kg: 0.6, warranty: 12, rooms: ['cozinha'], care: CARE.panela, dishwasher: true },
  { prefix: 'CAC', pt: 'Caçarola antiaderente', en: 'Non-stick casserole', category: 'panelas-antiaderentes', family: 'utensilios-cozinha', brands: ['aurora', 'ipe'], sizes: [size('18 cm', 1), size('22 cm', 1.3), size('26 cm', 1.6)], colors: ['vermelho', 'preto'], material: 'Alumínio com revestimento cerâmico', price: 119.9, kg: 1.1, warranty: 12, rooms: ['cozinha'], care: CARE.panela, dishwasher: true },
  { prefix: 'PIN', pt: 'Panela inox tripla camada', en: 'Tri-ply stainless steel pot', category: 'panelas-inox', family: 'utensilios-cozinha', brands: ['inox-sul', 'aurora'], sizes: [size('16 cm', 1), size('20 cm', 1.35), size('24 cm', 1.7)], colors: ['inox'], material: 'Aço inox 18/10', price: 249.9, kg: 1.4, warranty: 60, rooms: ['cozinha'], care: CARE.panela, dishwasher: true },
  { prefix: 'PRE', pt: 'Panela de pressão', en: 'Pressure cooker', category: 'panelas-pressao', family: 'utensilios-cozinha', brands: ['ipe', 'inox-sul'], sizes: [size('4,5 L', 1, '4.5 L'), size('7 L', 1.3)], colors: ['inox', 'preto'], material: 'Alumínio polido', price: 179.9, kg: 2.2, warranty: 24, rooms: ['cozinha'], care: CARE.panela, dishwasher: false },
  { prefix: 'ESP', pt: 'Espátula de silicone', en: 'Silicone spatula', category: 'cozinha-utensilios', family: 'utensilios-cozinha', brands: ['aurora', 'ipe'], sizes: [size('pequena', 1, 'small'), size('grande', 1.3, 'large')], colors: ['preto', 'vermelho', 'verde', 'azul'], material: 'Silicone e nylon', price: 24.9, kg: 0.08, warranty: 3, rooms: ['cozinha'], care: CARE.louca, dishwasher: true },
  { prefix: 'FAC', pt: 'Jogo de facas', en: 'Knife set', category: 'cozinha-utensilios', family: 'utensilios-cozinha', brands: ['inox-sul', 'aurora'], sizes: [size('5 peças', 1, '5 pieces'), size('8 peças', 1.6, '8 pieces')], colors: ['inox', 'preto'], material: 'Aço inox e polipropileno', price: 139.9, kg: 0.9, warranty: 24, rooms: ['cozinha'], care: CARE.louca, dishwasher: false },
  { prefix: 'TAB', pt: 'Tábua de corte', en: 'Cutting board', category: 'cozinha-utensilios', family: 'utensilios-cozinha', brands: ['jequitiba', 'ipe'], sizes: [size('30 x 20 cm', 1), size('40 x 28 cm', 1.5)], colors: ['madeira'], material: 'Madeira de reflorestamento', price: 59.9, kg: 0.7, warranty: 3, rooms: ['cozinha'], care: CARE.movel, dishwasher: false },
  { prefix: 'APJ', pt: 'Aparelho de jantar', en: 'Dinner set', category: 'cozinha-loucas', family: 'utensilios-cozinha', brands: ['ceramica-cunha', 'ipe'], sizes: [size('20 peças', 1, '20 pieces'), size('30 peças', 1.4, '30 pieces'), size('42 peças', 1.9, '42 pieces')], colors: ['branco', 'azul', 'bege'], material: 'Porcelana', price: 329.9, kg: 6, warranty: 12, rooms: ['cozinha', 'sala'], care: CARE.louca, dishwasher: true },
  { prefix: 'CAN', pt: 'Caneca de cerâmica', en: 'Ceramic mug', category: 'cozinha-loucas', family: 'utensilios-cozinha', brands: ['ceramica-cunha', 'ipe'], sizes: [size('300 ml', 1), size('450 ml', 1.2)], colors: ['branco', 'azul', 'verde', 'vermelho', 'preto'], material: 'Cerâmica esmaltada', price: 34.9, kg: 0.35, warranty: 3, rooms: ['cozinha', 'escritorio'], care: CARE.louca, dishwasher: true },
  { prefix: 'COP', pt: 'Jogo de copos', en: 'Glass set', category: 'cozinha-loucas', family: 'utensilios-cozinha', brands: ['ipe', 'aurora'], sizes: [size('6 x 300 ml', 1), size('6 x 400 ml', 1.2)], colors: ['branco', 'verde'], material: 'Vidro temperado', price: 49.9, kg: 1.6, warranty: 3, rooms: ['cozinha', 'sala'], care: CARE.louca, dishwasher: true },
  { prefix: 'CUS', pt: 'Cuscuzeira', en: 'Couscous steamer', category: 'cozinha-panelas', family: 'utensilios-cozinha', brands: ['aurora', 'ipe'], sizes: [size('1,5 L', 1, '1.5 L'), size('2,5 L', 1.4, '2.5 L')], colors: ['inox', 'vermelho'], material: 'Alumínio', price: 54.9, kg: 0.7, warranty: 12, rooms: ['cozinha'], care: CARE.panela, dishwasher: false },
  { prefix: 'PIP', pt: 'Pipoqueira com manivela', en: 'Stovetop popcorn popper', category: 'cozinha-panelas', family: 'utensilios-cozinha', brands: ['aurora', 'ipe'], sizes: [size('3,5 L', 1, '3.5 L')], colors: ['vermelho', 'preto'], material: 'Alumínio', price: 69.9, kg: 0.8, warranty: 12, rooms: ['cozinha'], care: CARE.panela, dishwasher: false },
  { prefix: 'GTE', pt: 'Garrafa térmica', en: 'Thermos flask', category: 'cozinha-utensilios', family: 'utensilios-cozinha', brands: ['inox-sul', 'ipe'], sizes: [size('500 ml', 1), size('1 L', 1.4), size('1,8 L', 1.9, '1.8 L')], colors: ['inox', 'preto', 'vermelho'], material: 'Aço inox com parede dupla', price: 99.9, kg: 0.45, warranty: 12, rooms: ['cozinha', 'escritorio'], care: CARE.louca, dishwasher: false },
  { prefix: 'FIL', pt: 'Filtro de barro', en: 'Clay water filter', category: 'cozinha-utensilios', family: 'utensilios-cozinha', brands: ['ceramica-cunha'], sizes: [size('4 L', 1), size('6 L', 1.3), size('8 L', 1.6)], colors: ['bege'], material: 'Barro cozido e vela de cerâmica', price: 139.9, kg: 4.5, warranty: 6, rooms: ['cozinha'], care: CARE.decor, dishwasher: false },
  // Bed, table and bath
  { prefix: 'LEN', pt: 'Jogo de lençol percal 200 fios', en: '200 thread-count percale sheet set', category: 'cama-lencois', family: 'textil-casa', brands: ['algodao-norte', 'lar-paulista'], sizes: [size('solteiro', 1, 'twin'), size('casal', 1.3, 'full'), size('queen', 1.45), size('king', 1.7)], colors: ['branco', 'cinza', 'azul', 'bege'], material: '100% algodão', price: 169.9, kg: 1.2, warranty: 3, rooms: ['quarto'], care: CARE.tecido },
  { prefix: 'TRV', pt: 'Travesseiro 50 x 70 cm', en: 'Pillow 50 x 70 cm', category: 'cama-travesseiros', family: 'textil-casa', brands: ['algodao-norte', 'lar-paulista'], sizes: [size('macio', 1, 'soft'), size('firme', 1.15, 'firm')], colors: ['branco'], material: 'Fibra siliconada e capa de algodão', price: 79.9, kg: 0.9, warranty: 6, rooms: ['quarto'], care: CARE.tecido },
  { prefix: 'EDR', pt: 'Edredom dupla face', en: 'Reversible comforter', category: 'cama', family: 'textil-casa', brands: ['lar-paulista', 'algodao-norte'], sizes: [size('casal', 1, 'full'), size('queen', 1.15), size('king', 1.35)], colors: ['cinza', 'azul', 'bege'], material: 'Microfibra', price: 229.9, kg: 2.4, warranty: 3, rooms: ['quarto'], care: CARE.tecido },
  { prefix: 'TOB', pt: 'Toalha fio penteado', en: 'Combed cotton towel', category: 'banho', family: 'textil-casa', brands: ['algodao-norte', 'lar-paulista'], sizes: [size('rosto', 0.45, 'face'), size('banho', 1, 'bath'), size('banhão', 1.4, 'bath sheet')], colors: ['branco', 'azul', 'verde', 'cinza'], material: '100% algodão fio penteado', price: 59.9, kg: 0.5, warranty: 3, rooms: ['banheiro'], care: CARE.tecido },
  { prefix: 'TAP', pt: 'Tapete de banheiro', en: 'Bath mat', category: 'banho', family: 'textil-casa', brands: ['lar-paulista', 'algodao-norte'], sizes: [size('40 x 60 cm', 1), size('50 x 80 cm', 1.4)], colors: ['branco', 'cinza', 'azul'], material: 'Algodão com base antiderrapante', price: 44.9, kg: 0.6, warranty: 3, rooms: ['banheiro'], care: CARE.tecido },
  { prefix: 'TOM', pt: 'Toalha de mesa', en: 'Tablecloth', category: 'mesa', family: 'textil-casa', brands: ['lar-paulista', 'algodao-norte'], sizes: [size('4 lugares', 1, '4 seats'), size('6 lugares', 1.3, '6 seats'), size('8 lugares', 1.6, '8 seats')], colors: ['branco', 'bege', 'vermelho'], material: 'Linho e algodão', price: 99.9, kg: 0.8, warranty: 3, rooms: ['sala', 'cozinha'], care: CARE.tecido },
  // Furniture
  { prefix: 'SOF', pt: 'Sofá retrátil e reclinável', en: 'Reclining sofa', category: 'moveis-sala', family: 'moveis', brands: ['serra-gaucha', 'jequitiba'], sizes: [size('2 lugares', 1, '2 seats'), size('3 lugares', 1.35, '3 seats')], colors: ['cinza', 'azul', 'bege'], material: 'Linho e madeira de eucalipto', price: 2499.9, kg: 65, warranty: 12, rooms: ['sala'], care: CARE.movel },
  { prefix: 'RAC', pt: 'Rack para TV', en: 'TV stand', category: 'moveis-sala', family: 'moveis', brands: ['serra-gaucha', 'jequitiba'], sizes: [size('1,40 m', 1, '1.40 m'), size('1,80 m', 1.3, '1.80 m')], colors: ['madeira', 'branco', 'preto'], material: 'MDF', price: 699.9, kg: 32, warranty: 12, rooms: ['sala'], care: CARE.movel },
  { prefix: 'CBX', pt: 'Cama box com baú', en: 'Storage box bed', category: 'moveis-quarto', family: 'moveis', brands: ['serra-gaucha', 'jequitiba'], sizes: [size('casal', 1, 'full'), size('queen', 1.2), size('king', 1.45)], colors: ['cinza', 'bege'], material: 'Madeira e tecido suede', price: 1399.9, kg: 48, warranty: 12, rooms: ['quarto'], care: CARE.movel },
  { prefix: 'GRP', pt: 'Guarda-roupa', en: 'Wardrobe', category: 'moveis-quarto', family: 'moveis', brands: ['serra-gaucha', 'jequitiba'], sizes: [size('3 portas', 1, '3 doors'), size('6 portas', 1.6, '6 doors')], colors: ['branco', 'madeira'], material: 'MDP', price: 1199.9, kg: 85, warranty: 12, rooms: ['quarto'], care: CARE.movel },
  { prefix: 'MES', pt: 'Mesa para escritório', en: 'Office desk', category: 'moveis-escritorio', family: 'moveis', brands: ['jequitiba', 'serra-gaucha'], sizes: [size('1,20 m', 1, '1.20 m'), size('1,50 m', 1.25, '1.50 m')], colors: ['madeira', 'branco', 'preto'], material: 'MDF e aço', price: 549.9, kg: 22, warranty: 12, rooms: ['escritorio'], care: CARE.movel },
  { prefix: 'CAD', pt: 'Cadeira de escritório', en: 'Office chair', category: 'moveis-escritorio', family: 'moveis', brands: ['jequitiba', 'serra-gaucha'], sizes: [size('ergonômica', 1, 'ergonomic'), size('presidente', 1.4, 'executive')], colors: ['preto', 'cinza'], material: 'Tela mesh e nylon', price: 899.9, kg: 15, warranty: 12, rooms: ['escritorio'], care: CARE.movel },
  // Decor
  { prefix: 'VAS', pt: 'Vaso de cerâmica', en: 'Ceramic vase', category: 'decoracao-vasos', family: 'decoracao', brands: ['ceramica-cunha', 'luz-bahia'], sizes: [size('P', 1, 'S'), size('M', 1.5), size('G', 2.2, 'L')], colors: ['branco', 'verde', 'azul', 'bege'], material: 'Cerâmica', price: 79.9, kg: 1.1, warranty: 3, rooms: ['sala', 'area-externa'], care: CARE.decor },
  { prefix: 'LUM', pt: 'Luminária de mesa', en: 'Table lamp', category: 'decoracao-iluminacao', family: 'decoracao', brands: ['luz-bahia', 'jequitiba'], sizes: [size('articulada', 1, 'swing-arm'), size('com cúpula', 1.3, 'with shade')], colors: ['preto', 'branco', 'madeira'], material: 'Metal e tecido', price: 189.9, kg: 1.8, warranty: 12, rooms: ['escritorio', 'quarto'], care: CARE.decor },
  { prefix: 'PEN', pt: 'Pendente de palha', en: 'Straw pendant light', category: 'decoracao-iluminacao', family: 'decoracao', brands: ['luz-bahia', 'jequitiba'], sizes: [size('30 cm', 1), size('45 cm', 1.4)], colors: ['bege', 'madeira'], material: 'Palha natural', price: 259.9, kg: 1.2, warranty: 6, rooms: ['sala', 'area-externa'], care: CARE.decor },
  { prefix: 'QUA', pt: 'Quadro decorativo', en: 'Framed wall art', category: 'decoracao-quadros', family: 'decoracao', brands: ['jequitiba', 'luz-bahia'], sizes: [size('40 x 60 cm', 1), size('60 x 90 cm', 1.6)], colors: ['preto', 'branco', 'madeira'], material: 'Impressão em canvas com moldura', price: 149.9, kg: 1.5, warranty: 3, rooms: ['sala', 'quarto', 'escritorio'], care: CARE.decor },
  // Outdoor
  { prefix: 'CHU', pt: 'Churrasqueira a carvão', en: 'Charcoal barbecue grill', category: 'area-externa-churrasco', family: 'area-externa', brands: ['brasa-forte', 'inox-sul'], sizes: [size('média', 1, 'medium'), size('grande', 1.5, 'large')], colors: ['preto', 'inox'], material: 'Aço esmaltado', price: 499.9, kg: 18, warranty: 12, rooms: ['area-externa'], care: CARE.movel },
  { prefix: 'CCH', pt: 'Conjunto para churrasco', en: 'Barbecue tool set', category: 'area-externa-churrasco', family: 'area-externa', brands: ['brasa-forte', 'inox-sul'], sizes: [size('3 peças', 1, '3 pieces'), size('5 peças', 1.5, '5 pieces')], colors: ['inox', 'madeira'], material: 'Aço inox e cabo de madeira', price: 119.9, kg: 1.1, warranty: 12, rooms: ['area-externa'], care: CARE.louca, dishwasher: true },
  { prefix: 'CHI', pt: 'Cuia de chimarrão com bomba', en: 'Chimarrão gourd with straw', category: 'area-externa-churrasco', family: 'area-externa', brands: ['inox-sul', 'jequitiba'], sizes: [size('tradicional', 1, 'traditional')], colors: ['madeira', 'preto'], material: 'Porongo e bomba de inox', price: 89.9, kg: 0.4, warranty: 3, rooms: ['area-externa', 'sala'], care: CARE.decor },
  { prefix: 'RED', pt: 'Rede de descanso', en: 'Hammock', category: 'area-externa-descanso', family: 'area-externa', brands: ['algodao-norte', 'lar-paulista'], sizes: [size('solteiro', 1, 'single'), size('casal', 1.4, 'double')], colors: ['azul', 'vermelho', 'verde', 'bege'], material: 'Algodão trançado', price: 149.9, kg: 1.6, warranty: 6, rooms: ['area-externa', 'sala'], care: CARE.tecido },
  { prefix: 'CJD', pt: 'Cadeira de jardim', en: 'Garden chair', category: 'area-externa-descanso', family: 'area-externa', brands: ['jequitiba', 'serra-gaucha'], sizes: [size('dobrável', 1, 'folding'), size('espreguiçadeira', 2.2, 'sun lounger')], colors: ['madeira', 'branco'], material: 'Eucalipto tratado', price: 229.9, kg: 6, warranty: 12, rooms: ['area-externa'], care: CARE.movel },
  { prefix: 'VAU', pt: 'Vaso autoirrigável', en: 'Self-watering planter', category: 'area-externa-jardim', family: 'area-externa', brands: ['ipe', 'luz-bahia'], sizes: [size('P', 1, 'S'), size('M', 1.6), size('G', 2.4, 'L')], colors: ['branco', 'cinza', 'verde'], material: 'Polipropileno reciclado', price: 39.9, kg: 0.5, warranty: 3, rooms: ['area-externa', 'sala'], care: CARE.decor },
  // Small appliances
  { prefix: 'CAF', pt: 'Cafeteira elétrica 30 xícaras', en: '30-cup coffee maker', category: 'eletro-cafe', family: 'eletroportateis', brands: ['vento-sul', 'aurora'], sizes: V, colors: ['preto', 'inox'], material: 'Plástico e aço inox', price: 159.9, kg: 1.9, warranty: 12, rooms: ['cozinha'], care: CARE.eletro, manual: true },
  { prefix: 'EXP', pt: 'Máquina de café espresso', en: 'Espresso machine', category: 'eletro-cafe', family: 'eletroportateis', brands: ['vento-sul', 'aurora'], sizes: V, colors: ['preto', 'inox', 'vermelho'], material: 'Aço inox', price: 899.9, kg: 4.5, warranty: 12, rooms: ['cozinha'], care: CARE.eletro, manual: true },
  { prefix: 'LIQ', pt: 'Liquidificador 1.200 W', en: '1,200 W blender', category: 'eletro-preparo', family: 'eletroportateis', brands: ['vento-sul', 'ipe'], sizes: V, colors: ['preto', 'vermelho', 'inox'], material: 'Copo de vidro, base de plástico', price: 229.9, kg: 3.2, warranty: 12, rooms: ['cozinha'], care: CARE.eletro, manual: true },
  { prefix: 'BAT', pt: 'Batedeira planetária', en: 'Stand mixer', category: 'eletro-preparo', family: 'eletroportateis', brands: ['vento-sul', 'aurora'], sizes: V, colors: ['vermelho', 'branco', 'preto'], material: 'Aço inox e plástico', price: 599.9, kg: 6.8, warranty: 12, rooms: ['cozinha'], care: CARE.eletro, manual: true },
  { prefix: 'AIR', pt: 'Fritadeira sem óleo 4 L', en: '4 L air fryer', category: 'eletro-preparo', family: 'eletroportateis', brands: ['vento-sul', 'aurora'], sizes: V, colors: ['preto', 'branco'], material: 'Plástico e cesto antiaderente', price: 399.9, kg: 4.1, warranty: 12, rooms: ['cozinha'], care: CARE.eletro, manual: true },
  { prefix: 'ASP', pt: 'Aspirador de pó vertical', en: 'Stick vacuum cleaner', category: 'eletro-limpeza', family: 'eletroportateis', brands: ['vento-sul', 'ipe'], sizes: V, colors: ['cinza', 'azul'], material: 'Plástico ABS', price: 449.9, kg: 2.9, warranty: 12, rooms: ['sala', 'quarto'], care: CARE.eletro, manual: true },
];

const CDN = 'https://cdn.example.com/casa-brasil';
const pad = (n: number, w = 3) => String(n).padStart(w, '0');
/** A price ending in ,90. */
const price = (amount: number) => Math.round((Math.max(1, Math.round(amount)) - 0.1) * 100) / 100;
const weight = (kg: number) =>
  kg < 1 ? { amount: Math.round(kg * 1000), unit: 'g' } : { amount: Math.round(kg * 100) / 100, unit: 'kg' };
/** A date between 2019 and 2026, from a number. */
const dateFrom = (n: number) => `${2019 + (n % 8)}-${pad(1 + (n % 12), 2)}-${pad(1 + ((n * 7) % 28), 2)}`;

function brandOf(code: string): DemoBrand {
  const b = BRANDS.find((x) => x.code === code);
  if (!b) throw new Error(`demo data: no brand '${code}'`);
  return b;
}

/** Every size of every line from each of its brands: PREFIX-001, PREFIX-002… */
function lineProducts(): DemoProduct[] {
  const out: DemoProduct[] = [];
  let n = 0;
  for (const line of LINES) {
    let i = 0;
    for (const brandCode of line.brands)
      for (const s of line.sizes) {
        i++;
        n++;
        const brand = brandOf(brandCode);
        const code = `${line.prefix}-${pad(i)}`;
        const color = line.colors[(i + line.brands.indexOf(brandCode)) % line.colors.length];
        const attributes: Record<string, unknown> = {
          material: line.material,
          cuidados: line.care,
          garantia_meses: line.warranty,
          lancamento: dateFrom(n),
          disponivel_em: `${dateFrom(n)}T${pad(9 + (n % 10), 2)}:00:00.000Z`,
          cor: color,
          ambientes: line.rooms,
          preco: { amount: price(line.price * s.f), currency: 'BRL' },
          peso: weight(line.kg * s.f),
          sac_email: brand.email,
          imagem_ambiente: `${CDN}/${code.toLowerCase()}-ambiente.jpg`,
          ficha_tecnica: `${CDN}/${code.toLowerCase()}-ficha.pdf`,
        };
        if (line.dishwasher !== undefined) attributes.lava_loucas = line.dishwasher;
        if (line.manual) attributes.manual_url = `https://manuais.example.com/${brand.code}/${code.toLowerCase()}`;
        out.push({
          code,
          type: 'simple',
          name: t(`${line.pt} ${s.pt} ${brand.name}`, `${brand.name} ${line.en} ${s.en}`),
          description: t(
            `${line.pt} ${s.pt} da ${brand.name}, em ${line.material.toLowerCase()}.`,
            `${line.en} ${s.en} by ${brand.name}.`,
          ),
          family: line.family,
          brand: brand.code,
          categories: [line.category],
          // One in every 25 products is not on sale yet.
          enabled: n % 25 !== 0,
          tags: n % 7 === 0 ? [DEMO_TAG, 'promocao'] : [DEMO_TAG],
          image: `${CDN}/${code.toLowerCase()}.jpg`,
          attributes,
        });
      }
  }
  return out;
}

/** Products sold in variations (colours): the parent and one variation per colour. */
// prettier-ignore
const GRADES: { code: string; pt: string; en: string; line: string; brand: string; colors: string[] }[] = [
  { code: 'LEN-PERCAL-400', pt: 'Jogo de lençol percal 400 fios queen', en: '400 thread-count percale sheet set, queen', line: 'LEN', brand: 'algodao-norte', colors: ['branco', 'cinza', 'azul', 'bege'] },
  { code: 'TOB-EGIPCIO', pt: 'Toalha de banho fio egípcio', en: 'Egyptian cotton bath towel', line: 'TOB', brand: 'algodao-norte', colors: ['branco', 'azul', 'verde', 'cinza'] },
  { code: 'CAN-ESMALTADA', pt: 'Caneca esmaltada 350 ml', en: 'Enamel mug 350 ml', line: 'CAN', brand: 'ceramica-cunha', colors: ['branco', 'azul', 'verde', 'vermelho', 'preto'] },
  { code: 'CAD-GIRATORIA', pt: 'Cadeira giratória com braços', en: 'Swivel chair with arms', line: 'CAD', brand: 'jequitiba', colors: ['preto', 'cinza', 'azul'] },
  { code: 'VAS-BOJUDO', pt: 'Vaso bojudo de cerâmica', en: 'Round ceramic vase', line: 'VAS', brand: 'ceramica-cunha', colors: ['branco', 'verde', 'bege', 'azul'] },
];

function gradeProducts(): { parents: DemoProduct[]; variations: DemoProduct[] } {
  const parents: DemoProduct[] = [];
  const variations: DemoProduct[] = [];
  GRADES.forEach((g, gi) => {
    const line = LINES.find((l) => l.prefix === g.line)!;
    const brand = brandOf(g.brand);
    const base = price(line.price * 1.4);
    parents.push({
      code: g.code,
      type: 'simple',
      name: t(`${g.pt} ${brand.name}`, `${brand.name} ${g.en}`),
      description: t(`${g.pt}, em ${g.colors.length} cores.`, `${g.en}, in ${g.colors.length} colours.`),
      family: line.family,
      brand: brand.code,
      categories: [line.category],
      enabled: true,
      tags: [DEMO_TAG, 'grade'],
      image: `${CDN}/${g.code.toLowerCase()}.jpg`,
      attributes: {
        material: line.material,
        cuidados: line.care,
        garantia_meses: line.warranty,
        lancamento: dateFrom(300 + gi),
        ambientes: line.rooms,
        preco: { amount: base, currency: 'BRL' },
        sac_email: brand.email,
      },
    });
    for (const color of g.colors) {
      const label = COLORS.find((c) => c.value === color)!.label;
      const code = `${g.code}-${color.toUpperCase()}`;
      variations.push({
        code,
        type: 'variation',
        name: t(
          `${g.pt} ${brand.name} ${label['pt-BR'].toLowerCase()}`,
          `${brand.name} ${g.en}, ${label.en.toLowerCase()}`,
        ),
        description: t(`${g.pt}, cor ${label['pt-BR'].toLowerCase()}.`, `${g.en}, ${label.en.toLowerCase()}.`),
        family: line.family,
        brand: brand.code,
        categories: [line.category],
        parent: g.code,
        enabled: true,
        tags: [DEMO_TAG],
        image: `${CDN}/${code.toLowerCase()}.jpg`,
        // A variation holds only the attributes meant for SKUs (association sku or product_and_sku).
        attributes: {
          material: line.material,
          cor: color,
          preco: { amount: color === 'preto' ? price(base + 10) : base, currency: 'BRL' },
          peso: weight(line.kg * 1.4),
        },
      });
    }
  });
  return { parents, variations };
}

/** Services sold with products (assembly, installation, warranty, delivery). */
// prettier-ignore
const SERVICE_LIST: [string, string, string, string, number, string, string][] = [
  ['SRV-MONTAGEM', 'Montagem de móveis', 'Furniture assembly', 'servicos-montagem', 149.9, 'Um montador vai até a sua casa e monta o móvel.', 'A fitter comes to your home and assembles the furniture.'],
  ['SRV-INST-LUMINARIA', 'Instalação de luminária', 'Light fitting installation', 'servicos-instalacao', 89.9, 'Instalação elétrica de luminárias e pendentes.', 'Electrical installation of lamps and pendants.'],
  ['SRV-INST-QUADROS', 'Instalação de quadros e prateleiras', 'Wall art and shelf hanging', 'servicos-instalacao', 69.9, 'Furação e fixação na parede.', 'Drilling and wall fixing.'],
  ['SRV-GARANTIA-12', 'Garantia estendida 12 meses', 'Extended warranty, 12 months', 'servicos-garantia', 79.9, 'Mais 12 meses além da garantia do fabricante.', "12 more months after the manufacturer's warranty."],
  ['SRV-GARANTIA-24', 'Garantia estendida 24 meses', 'Extended warranty, 24 months', 'servicos-garantia', 139.9, 'Mais 24 meses além da garantia do fabricante.', "24 more months after the manufacturer's warranty."],
  ['SRV-ENTREGA-AGENDADA', 'Entrega agendada', 'Scheduled delivery', 'servicos', 29.9, 'Escolha o dia e o período da entrega.', 'Choose the day and time of the delivery.'],
];

function serviceProducts(): DemoProduct[] {
  return SERVICE_LIST.map(([code, pt, en, category, amount, dpt, den]) => ({
    code,
    type: 'service',
    name: t(pt, en),
    description: t(dpt, den),
    family: 'servicos',
    categories: [category],
    enabled: true,
    tags: [DEMO_TAG, 'servico'],
    image: `${CDN}/${code.toLowerCase()}.jpg`,
    attributes: {
      preco: { amount, currency: 'BRL' },
      cuidados: t('Agende pelo SAC.', 'Book it with customer service.'),
    },
  }));
}

/** Kits: what they hold (product code → quantity) and the services that come with them. */
export interface DemoKit {
  code: string;
  pt: string;
  en: string;
  category: string;
  products: Record<string, number>;
  services?: Record<string, number>;
}

// prettier-ignore
export const KITS: DemoKit[] = [
  { code: 'KIT-COZINHA-ESSENCIAL', pt: 'Kit cozinha essencial', en: 'Essential kitchen bundle', category: 'cozinha', products: { 'FRI-002': 1, 'CAC-002': 1, 'ESP-001': 2, 'FAC-001': 1 } },
  { code: 'KIT-CAFE-DA-MANHA', pt: 'Kit café da manhã', en: 'Breakfast bundle', category: 'cozinha', products: { 'CAF-001': 1, 'CAN-001': 4, 'COP-001': 1 }, services: { 'SRV-GARANTIA-12': 1 } },
  { code: 'KIT-HOME-OFFICE', pt: 'Kit home office', en: 'Home office bundle', category: 'moveis', products: { 'MES-001': 1, 'CAD-001': 1, 'LUM-001': 1 }, services: { 'SRV-MONTAGEM': 1 } },
  { code: 'KIT-QUARTO-CASAL', pt: 'Kit quarto casal', en: 'Double bedroom bundle', category: 'moveis', products: { 'CBX-001': 1, 'LEN-002': 2, 'TRV-001': 2, 'EDR-001': 1 }, services: { 'SRV-MONTAGEM': 1, 'SRV-ENTREGA-AGENDADA': 1 } },
  { code: 'KIT-BANHO', pt: 'Kit banho completo', en: 'Complete bath bundle', category: 'cama-mesa-banho', products: { 'TOB-001': 2, 'TOB-002': 2, 'TAP-001': 1 } },
  { code: 'KIT-SALA-TV', pt: 'Kit sala de TV', en: 'TV room bundle', category: 'moveis', products: { 'SOF-002': 1, 'RAC-001': 1, 'VAS-002': 1 }, services: { 'SRV-MONTAGEM': 1, 'SRV-ENTREGA-AGENDADA': 1 } },
  { code: 'KIT-JANTAR', pt: 'Kit jantar', en: 'Dinner bundle', category: 'cozinha', products: { 'APJ-001': 1, 'COP-002': 2, 'TOM-002': 1 } },
  { code: 'KIT-CHURRASCO', pt: 'Kit churrasco de domingo', en: 'Sunday barbecue bundle', category: 'area-externa', products: { 'CHU-001': 1, 'CCH-002': 1, 'CJD-001': 4 }, services: { 'SRV-ENTREGA-AGENDADA': 1 } },
  { code: 'KIT-ESPRESSO', pt: 'Kit espresso', en: 'Espresso bundle', category: 'eletroportateis', products: { 'EXP-001': 1, 'CAN-ESMALTADA-PRETO': 2 }, services: { 'SRV-GARANTIA-24': 1 } },
];

function kitProducts(all: DemoProduct[]): DemoProduct[] {
  const byCode = new Map(all.map((p) => [p.code, p]));
  return KITS.map((k) => {
    const total = Object.entries(k.products).reduce((sum, [code, qty]) => {
      const p = byCode.get(code);
      if (!p) throw new Error(`demo data: kit ${k.code} names no product '${code}'`);
      return sum + (p.attributes.preco as { amount: number }).amount * qty;
    }, 0);
    return {
      code: k.code,
      type: 'kit',
      name: t(k.pt, k.en),
      description: t(`${k.pt}: tudo o que você precisa com 10% de desconto.`, `${k.en}: everything you need, 10% off.`),
      family: 'kits',
      categories: [k.category],
      enabled: true,
      tags: [DEMO_TAG, 'kit'],
      image: `${CDN}/${k.code.toLowerCase()}.jpg`,
      attributes: {
        preco: { amount: price(total * 0.9), currency: 'BRL' },
        cuidados: t('Veja os cuidados de cada item.', 'See the care instructions of each item.'),
        imagem_ambiente: `${CDN}/${k.code.toLowerCase()}-ambiente.jpg`,
      },
    };
  });
}

const lines = lineProducts();
const grades = gradeProducts();
const services = serviceProducts();

/** Products written first (everything but variations, which name their parents' ids). */
export const PRODUCTS: DemoProduct[] = [
  ...lines,
  ...grades.parents,
  ...services,
  ...kitProducts([...lines, ...grades.variations]),
];
/** Variations, written once their parents exist. */
export const VARIATIONS: DemoProduct[] = grades.variations;

// ---------------------------------------------------------------------------------------------
// Product relations: kits, kit services, service eligibility, associations

export type DemoRelationType =
  | 'association'
  | 'kit_products'
  | 'kit_services'
  | 'eligible_service_products'
  | 'ineligible_service_products'
  | 'eligible_service_categories'
  | 'ineligible_service_categories';

/** One relation of a product: products by code (with a quantity for kits) or categories by code. */
export interface DemoRelation {
  product: string;
  type: DemoRelationType;
  products?: Record<string, number | null>;
  categories?: string[];
}

const codesOf = (prefix: string) =>
  [...PRODUCTS, ...VARIATIONS].filter((p) => p.code.startsWith(`${prefix}-`)).map((p) => p.code);
const each = (codes: string[]) => Object.fromEntries(codes.map((c) => [c, null]));

export const RELATIONS: DemoRelation[] = [
  ...KITS.map((k): DemoRelation => ({ product: k.code, type: 'kit_products', products: k.products })),
  ...KITS.filter((k) => k.services).map((k): DemoRelation => ({
    product: k.code,
    type: 'kit_services',
    products: k.services,
  })),
  {
    product: 'SRV-MONTAGEM',
    type: 'eligible_service_categories',
    categories: ['moveis-sala', 'moveis-quarto', 'moveis-escritorio'],
  },
  { product: 'SRV-INST-LUMINARIA', type: 'eligible_service_categories', categories: ['decoracao-iluminacao'] },
  { product: 'SRV-INST-QUADROS', type: 'eligible_service_categories', categories: ['decoracao-quadros'] },
  {
    product: 'SRV-GARANTIA-12',
    type: 'eligible_service_categories',
    categories: ['eletro-cafe', 'eletro-preparo', 'eletro-limpeza'],
  },
  {
    product: 'SRV-GARANTIA-24',
    type: 'eligible_service_products',
    products: each([...codesOf('EXP'), ...codesOf('BAT')]),
  },
  {
    product: 'SRV-ENTREGA-AGENDADA',
    type: 'eligible_service_categories',
    categories: ['moveis', 'eletroportateis', 'area-externa'],
  },
  {
    product: 'SRV-ENTREGA-AGENDADA',
    type: 'ineligible_service_categories',
    categories: ['cozinha-utensilios', 'decoracao-quadros'],
  },
  { product: 'FRI-002', type: 'association', products: each(['ESP-001', 'ESP-002', 'CAC-002']) },
  { product: 'CAF-001', type: 'association', products: each(['CAN-001', 'CAN-002', 'CAN-ESMALTADA']) },
  { product: 'SOF-002', type: 'association', products: each(['RAC-001', 'PEN-001', 'QUA-002']) },
];

// ---------------------------------------------------------------------------------------------
// Workflows, the workflow approval, the channel, orders

export const WORKFLOW_CODE = 'pedidos-loja';

/** The order workflow (an API WorkflowInput as it is). Not the default: the demo's orders name it. */
/** A status of a workflow step (`moves_to`: the statuses it may move to; none: any). */
export type DemoStatus = {
  code: string;
  name: string;
  color?: string;
  notify?: boolean;
  outcome?: 'COMPLETED' | 'CANCELED' | '';
  moves_to?: string[];
};
/** A workflow as the API takes it (WorkflowInput). */
export type DemoWorkflow = {
  code: string;
  name: string;
  description: string;
  enabled: boolean;
  default: boolean;
  tags: string[];
  steps: { code: string; name: string; allocation_time?: number; status: DemoStatus[] }[];
};

export const WORKFLOWS: DemoWorkflow[] = [
  {
    code: WORKFLOW_CODE,
    name: 'Pedidos da loja',
    description: 'Do pagamento à entrega',
    enabled: true,
    default: false,
    tags: [DEMO_TAG],
    steps: [
      {
        code: 'pagamento',
        name: 'Pagamento',
        allocation_time: 24,
        status: [
          {
            code: 'aguardando-pagamento',
            name: 'Aguardando pagamento',
            color: '#F9A825',
            moves_to: ['pagamento-aprovado', 'cancelado'],
          },
          {
            code: 'pagamento-aprovado',
            name: 'Pagamento aprovado',
            color: '#1E88E5',
            notify: true,
            moves_to: ['em-separacao', 'cancelado'],
          },
        ],
      },
      {
        code: 'separacao',
        name: 'Separação',
        allocation_time: 8,
        status: [{ code: 'em-separacao', name: 'Em separação', color: '#8E24AA', moves_to: ['enviado', 'cancelado'] }],
      },
      {
        code: 'transporte',
        name: 'Transporte',
        allocation_time: 72,
        status: [
          { code: 'enviado', name: 'Enviado', color: '#00897B', notify: true, moves_to: ['entregue', 'devolvido'] },
        ],
      },
      {
        code: 'encerramento',
        name: 'Encerramento',
        status: [
          { code: 'entregue', name: 'Entregue', color: '#43A047', notify: true, outcome: 'COMPLETED' },
          { code: 'devolvido', name: 'Devolvido', color: '#6D4C41', outcome: 'CANCELED' },
          { code: 'cancelado', name: 'Cancelado', color: '#E53935', notify: true, outcome: 'CANCELED' },
        ],
      },
    ],
  },
];

/** The workflow approval of kit changes (the kits by code; approvers by user). */
export const WORKFLOW_APPROVALS = [
  {
    code: 'aprovacao-kits',
    name: 'Aprovação de kits',
    description: 'Mudanças na composição dos kits passam por merchandising e pela dona do catálogo',
    enabled: true,
    default: false,
    tags: [DEMO_TAG],
    included_products: KITS.map((k) => k.code),
    steps: [
      { name: 'Merchandising', order: 1, approvers: [USERS.ana.id, USERS.bruno.id] },
      { name: 'Dona do catálogo', order: 2, approvers: [USERS.carla.id] },
    ],
  },
];

/** The sales channel (a public placeholder endpoint: the demo publishes nothing by itself). */
export const CHANNELS = [
  {
    code: 'vitrine',
    name: 'Vitrine Marketplace',
    enabled: true,
    kind: 'http',
    endpoint: { url: 'https://marketplace.example.com/api/listings', method: 'POST', timeout_ms: 10000 },
    language: 'pt-BR',
    mapping: [
      { field: 'sku', source: 'code' },
      { field: 'title', source: 'name' },
      { field: 'description', source: 'description' },
      { field: 'price', source: 'attributes.preco' },
      { field: 'color', source: 'attributes.cor' },
    ],
    required_attributes: ['preco'],
    auto_republish: false,
  },
];

// prettier-ignore
const CUSTOMERS: [string, string, string, string, [number, number]][] = [
  ['Mariana Oliveira', 'São Paulo', 'SP', '01310-100', [-46.6544, -23.5614]],
  ['João Pereira', 'Rio de Janeiro', 'RJ', '22071-000', [-43.1823, -22.9711]],
  ['Fernanda Costa', 'Belo Horizonte', 'MG', '30130-010', [-43.9378, -19.9208]],
  ['Rafael Almeida', 'Recife', 'PE', '51020-010', [-34.8966, -8.1189]],
  ['Juliana Ribeiro', 'Porto Alegre', 'RS', '90010-150', [-51.2287, -30.0277]],
  ['Lucas Carvalho', 'Salvador', 'BA', '40140-110', [-38.5108, -12.9986]],
  ['Camila Martins', 'Curitiba', 'PR', '80010-000', [-49.2713, -25.4284]],
  ['Gabriel Gomes', 'Fortaleza', 'CE', '60165-121', [-38.4919, -3.7319]],
  ['Beatriz Araújo', 'Florianópolis', 'SC', '88015-200', [-48.5482, -27.5954]],
  ['Pedro Barbosa', 'Belém', 'PA', '66035-000', [-48.4902, -1.4558]],
  ['Larissa Cardoso', 'Goiânia', 'GO', '74110-010', [-49.2643, -16.6869]],
  ['Thiago Rocha', 'Manaus', 'AM', '69005-000', [-60.0212, -3.1190]],
];

const STREETS = [
  'Avenida Paulista',
  'Rua das Flores',
  'Rua XV de Novembro',
  'Avenida Beira-Mar',
  'Rua da Aurora',
  'Avenida Sete de Setembro',
];
const PAYMENT_METHODS: [string, number][] = [
  ['pix', 1],
  ['cartao_credito', 3],
  ['boleto', 1],
  ['cartao_credito', 10],
];
/** Where each demo order ends up (the path to it follows the workflow). */
const TARGETS = [
  'entregue',
  'enviado',
  'aguardando-pagamento',
  'em-separacao',
  'entregue',
  'pagamento-aprovado',
  'cancelado',
  'enviado',
  'entregue',
  'devolvido',
];

export interface DemoOrder {
  /** The OrderInput, with each item's product by code in `sku`. */
  input: Record<string, unknown> & { code: string; order_items: { sku: string; quantity: number }[] };
  /** The status the demo moves it to. */
  status: string;
}

const slug = (s: string) =>
  s
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z]+/g, '.');

/** 40 orders over November 2026, with 1–3 items each. */
function makeOrders(): DemoOrder[] {
  const catalog = [...PRODUCTS, ...VARIATIONS].filter((p) => p.type !== 'service' && p.enabled && p.type !== 'kit');
  const sellable = catalog.filter((p) => !GRADES.some((g) => g.code === p.code));
  return Array.from({ length: 40 }, (_, i) => {
    const [name, city, state, zipcode, coordinates] = CUSTOMERS[i % CUSTOMERS.length];
    const items = Array.from({ length: 1 + (i % 3) }, (_, j) => {
      const p = sellable[(i * 37 + j * 101) % sellable.length];
      const quantity = 1 + ((i + j) % 2);
      const unit = (p.attributes.preco as { amount: number }).amount;
      return {
        sku: p.code,
        name: p.name['pt-BR'],
        quantity,
        unit_price: unit,
        total: Math.round(unit * quantity * 100) / 100,
      };
    });
    const subtotal = Math.round(items.reduce((s, x) => s + x.total, 0) * 100) / 100;
    const shipping = subtotal > 299 ? 0 : 19.9;
    const total = Math.round((subtotal + shipping) * 100) / 100;
    const [method, installments] = PAYMENT_METHODS[i % PAYMENT_METHODS.length];
    const status = TARGETS[i % TARGETS.length];
    const paid = !['aguardando-pagamento', 'cancelado'].includes(status);
    const day = 1 + Math.floor((i * 24) / 40);
    const placed = `2026-11-${pad(day, 2)}T${pad(10 + (i % 12), 2)}:${pad((i * 13) % 60, 2)}:00.000Z`;
    return {
      status,
      input: {
        code: `PED-${pad(1001 + i, 6)}`,
        external_code: `VTR-${pad(700301 + i * 7, 8)}`,
        placed_at: placed,
        channel: { code: 'vitrine', name: 'Vitrine Marketplace' },
        store_source: { code: 'cd-cajamar', name: 'Centro de distribuição Cajamar' },
        customer: {
          code: `CLI-${pad(1 + (i % CUSTOMERS.length), 5)}`,
          name,
          email: `${slug(name)}@example.com`,
          phone: `+55 11 9${pad(1000 + i * 17, 4)}-${pad(2000 + i * 31, 4)}`,
          document: `${pad(100 + i, 3)}.${pad(200 + i, 3)}.${pad(300 + i, 3)}-${pad(i % 100, 2)}`,
          document_type: 'cpf',
          address: {
            street: STREETS[i % STREETS.length],
            number: String(100 + i * 11),
            neighborhood: 'Centro',
            city,
            state,
            zipcode,
            country: 'BR',
            coordinates,
          },
        },
        workflow_code: WORKFLOW_CODE,
        items_count: items.reduce((s, x) => s + x.quantity, 0),
        sla: 2880,
        order_items: items,
        totals: { subtotal, shipping, discount: 0, total },
        order_payments: [
          {
            method,
            amount: total,
            currency: 'BRL',
            status: paid ? 'paid' : 'pending',
            installments,
            ...(paid ? { paid_at: placed } : {}),
          },
        ],
        metadata: { source: 'demo' },
      },
    };
  });
}

export const ORDERS: DemoOrder[] = makeOrders();

/** Collections the demo webhook(s) listen to (one webhook per collection). */
export const WEBHOOK_COLLECTIONS = ['products', 'orders'];
/** The body pair that marks a webhook as the demo's own (the demo never touches another). */
export const WEBHOOK_MARK = { key: 'source', value: 'pim-demo' };
